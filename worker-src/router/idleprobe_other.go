//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris)

package router

import "net"

// Without a non-blocking peek (see idleprobe_unix.go) nothing tells a quiet idle connection
// from one holding a late response for the next client, so no connection is ever found quiet
// and each carries one exchange (the transport refuses the second), and a client's leaving is
// never noticed before the response head arrives.
type idleProbe struct{}

func newIdleProbe(net.Conn) *idleProbe { return nil }

func (*idleProbe) stillQuiet() bool { return false }

func clientLeft(net.Conn) bool { return false }
