//go:build !unix

package localedge

// lockStateDir is never reached where the local edge does not run (Run refuses first).
func lockStateDir(string) (func(), error) { return func() {}, nil }
