package main

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// readProcessCPU finds the processes under a host and sums their threads' time: a child that
// spins and then waits shows its spinning under runtime, and the test's own process under
// host.
func TestReadProcessCPUCountsTheChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc, which only Linux has")
	}
	before, ok := readProcessCPU(os.Getpid())
	if !ok {
		t.Fatal("readProcessCPU of this process: /proc did not answer")
	}
	child := exec.Command("bash", "-c", `i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo spun; sleep 30`)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "spun\n" {
		t.Fatalf("the child did not spin: %q, %v", buf, err)
	}
	after, ok := readProcessCPU(os.Getpid())
	if !ok {
		t.Fatal("readProcessCPU after the child spun: /proc did not answer")
	}
	d := after.minus(before)
	// bash counts to 200,000 in about a second of CPU here; a tenth of that is far above what
	// starting a process costs, and far below what the loop takes on any machine.
	if d.runtime < 50*time.Millisecond {
		t.Errorf("the children ran %v, want the child's spinning (at least 50ms)", d.runtime)
	}
	var named time.Duration
	for _, v := range d.byThread {
		named += v
	}
	if named != d.runtime {
		t.Errorf("by thread %v, %v in all, want the children's %v", d.byThread, named, d.runtime)
	}
	if d.host <= 0 {
		t.Errorf("the host's own time did not grow: %v", d.host)
	}
}
