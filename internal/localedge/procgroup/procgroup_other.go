//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

// Supported reports whether the local edge can manage its children here: not without process
// groups.
const Supported = false

// Detach leaves cmd as it is: there are no process groups to put it in.
func Detach(*exec.Cmd) {}

// Terminate kills p: there is no SIGTERM to ask it with.
func Terminate(p *os.Process) error { return p.Kill() }

// KillGroup kills p alone.
func KillGroup(p *os.Process) error { return p.Kill() }
