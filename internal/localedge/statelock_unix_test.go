//go:build unix

package localedge

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A state dir takes one local edge at a time: a second is refused with the first's pid, before
// it writes anything there; once the first has stopped, the dir is free again.
func TestStateDirTakesOneLocalEdge(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockStateDir(newStateLayout(dir).lock)
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	code := Main(t.Context(), []string{"--state-dir", dir, "--api", "127.0.0.1:0", "--edge", "127.0.0.1:0"}, io.Discard, &stderr)
	pid := "pid " + strconv.Itoa(os.Getpid())
	if code != 1 || !strings.Contains(stderr.String(), "in use by another local edge ("+pid+")") {
		t.Fatalf("exit %d, stderr %q; want 1 and the other local edge's %s", code, stderr.String(), pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "env")); !os.IsNotExist(err) {
		t.Errorf("the refused local edge wrote the env file (%v)", err)
	}
	unlock()
	again, err := lockStateDir(newStateLayout(dir).lock)
	if err != nil {
		t.Fatalf("after the first one stopped: %v", err)
	}
	again()
}
