//go:build unix

package procgroup

import (
	"bufio"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// KillGroup reaches the children of a detached process too (workerd under its Node host), and
// the detached process is the leader of a group of its own, not in the test's.
func TestKillGroupKillsTheChildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & echo $!; wait")
	Detach(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the child's pid: %q", line)
	}
	if pgid, err := syscall.Getpgid(cmd.Process.Pid); err != nil || pgid != cmd.Process.Pid {
		t.Errorf("the detached process is in group %d (%v), want its own, %d", pgid, err, cmd.Process.Pid)
	}
	if err := KillGroup(cmd.Process); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error says so
	// The child was reparented when its shell died; once killed it is gone, or a zombie its new
	// parent reaps shortly.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := syscall.Kill(child, 0)
		if errors.Is(err, syscall.ESRCH) || isZombie(child) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child %d outlived its group's kill (kill 0: %v)", child, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// isZombie reports whether pid has exited and waits for its parent to reap it, as ps reports
// its state.
func isZombie(pid int) bool {
	stat, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err == nil && strings.HasPrefix(strings.TrimSpace(string(stat)), "Z")
}
