//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

// Supported reports whether the local edge can manage its children here.
const Supported = true

// Detach makes cmd start in a process group of its own.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Terminate asks p to stop (SIGTERM): a router drains, Node disposes of workerd.
func Terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// KillGroup kills p and every process of the group Detach gave it (workerd under Node).
func KillGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
