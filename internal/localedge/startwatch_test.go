package localedge

import (
	"strings"
	"testing"
	"time"
)

// The router says where it listens in its "router started" line; the local edge reads it
// from the output as the process writes it, in whatever pieces the pipe hands over, and
// passes every byte on.
func TestStartWatch_ReadsTheListenAddressFromTheRoutersOutput(t *testing.T) {
	output := `{"time":"t","level":"INFO","msg":"loading keys"}` + "\n" +
		`{"time":"t","level":"INFO","msg":"router started","listen":"127.0.0.1:41234","admin":"127.0.0.1:41235"}` + "\n" +
		`{"time":"t","level":"INFO","msg":"router started","listen":"127.0.0.1:9"}` + "\n"
	for _, size := range []int{1, 7, 64, len(output)} {
		var passed strings.Builder
		w := newStartWatch(&passed)
		for rest := output; rest != ""; {
			n := min(size, len(rest))
			if _, err := w.Write([]byte(rest[:n])); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		addr, err := w.wait(make(chan struct{}), time.Second)
		if err != nil || addr != "127.0.0.1:41234" {
			t.Errorf("pieces of %d bytes: address %q, %v; want the first start line's 127.0.0.1:41234", size, addr, err)
		}
		if passed.String() != output {
			t.Errorf("pieces of %d bytes: output passed on as %q", size, passed.String())
		}
	}
}

func TestStartWatch_ARouterThatExitsFirstIsAnError(t *testing.T) {
	var passed strings.Builder
	w := newStartWatch(&passed)
	_, _ = w.Write([]byte(`{"msg":"listen tcp 127.0.0.1:0: bind: permission denied"}` + "\n"))
	exited := make(chan struct{})
	close(exited)
	if addr, err := w.wait(exited, time.Minute); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("wait = %q, %v; want the exit", addr, err)
	}
	// Silence is an error too, once the limit has passed.
	if addr, err := newStartWatch(&passed).wait(make(chan struct{}), 10*time.Millisecond); err == nil {
		t.Errorf("wait on a silent router = %q, nil", addr)
	}
}
