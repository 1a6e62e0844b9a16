package localedge

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

// mainEnv makes the test binary run Main instead of the tests, so a test can signal a real
// local edge process.
const mainEnv = "LOCALEDGE_TEST_RUN_MAIN"

// nodePackagesEnv, with mainEnv, runs the command as the provider binary does: with the npm
// manifest in this directory to install when no node_modules is found.
const nodePackagesEnv = "LOCALEDGE_TEST_NODE_PACKAGES"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		if dir := os.Getenv(nodePackagesEnv); dir != "" {
			os.Exit(Command(nil, os.DirFS(dir))(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
		}
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestMain_SIGTERMStopsEverything starts the command as a process, sends SIGTERM, and checks
// that it exits 0, removes its ready file and leaves no Node host behind.
func TestMain_SIGTERMStopsEverything(t *testing.T) {
	requireRuntime(t)
	stateDir := t.TempDir()
	ready := filepath.Join(t.TempDir(), "ready")
	edge := startMain(t, "", ready, 3*time.Minute, nil, "--state-dir", stateDir, "--api", "127.0.0.1:0", "--edge", "127.0.0.1:0", "--ready-file", ready)
	hostScript := filepath.Join(stateDir, "runtime", "host.mjs")
	if len(processesRunning(hostScript)) == 0 {
		t.Fatalf("no process runs %s while the local edge is ready", hostScript)
	}

	edge.stop(t)
	if _, err := os.Stat(ready); !os.IsNotExist(err) {
		t.Errorf("the ready file outlived the process (stat: %v)", err)
	}
	if pids := processesRunning(hostScript); len(pids) > 0 {
		t.Errorf("Node host processes %v still run after the local edge stopped", pids)
	}
	if !strings.Contains(edge.stdout.String(), "ready: ") {
		t.Errorf("no ready line:\n%s", edge.stdout.String())
	}
}

// processesRunning lists the pids whose command line mentions arg (Linux /proc).
func processesRunning(arg string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(arg)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestMain_RelativePathFlags runs the command from a directory of its own with every path flag
// relative to it (as `--state-dir build/edge` from a checkout): it must start, write its files
// where the flags say, and stop cleanly. A relative state dir was once joined twice on its way
// to the runtime host, which then failed with Node's MODULE_NOT_FOUND.
func TestMain_RelativePathFlags(t *testing.T) {
	requireRuntime(t)
	wd, _ := os.Getwd()
	nodeModules, err := edgeruntime.FindNodeModules("", wd)
	must(t, "find node_modules", err)
	dir := t.TempDir()
	relModules, err := filepath.Rel(dir, nodeModules)
	must(t, "node_modules relative to the working directory", err)
	edge := startMain(t, dir, filepath.Join(dir, "build", "ready"), 3*time.Minute, nil,
		"--state-dir", "build/edge", "--ready-file", "build/ready", "--node-modules", relModules,
		"--api", "127.0.0.1:0", "--edge", "127.0.0.1:0")
	for _, f := range []string{"env", "runtime/host.mjs"} {
		if _, err := os.Stat(filepath.Join(dir, "build", "edge", f)); err != nil {
			t.Errorf("%s is not under the relative state dir: %v", f, err)
		}
	}
	// The runtime host keeps running (it died at once, MODULE_NOT_FOUND, when its path was
	// joined twice), started by its absolute path.
	hostScript := filepath.Join(dir, "build", "edge", "runtime", "host.mjs")
	time.Sleep(time.Second)
	if len(processesRunning(hostScript)) == 0 {
		t.Errorf("no process runs %s a second after the local edge was ready\nstderr:\n%s", hostScript, edge.stderr.String())
	}
	edge.stop(t)
}

// TestMain_InstallsItsNodePackagesOutsideACheckout runs the command as an installed provider
// binary would be run: from a directory outside any checkout, with an empty cache. It installs
// the npm packages it pins (saying so), starts workerd from them, and the next start finds them
// in place.
func TestMain_InstallsItsNodePackagesOutsideACheckout(t *testing.T) {
	requireRuntime(t)
	wd, _ := os.Getwd()
	repo := filepath.Dir(filepath.Dir(wd)) // internal/localedge → the repository
	cache, dir := t.TempDir(), t.TempDir()
	start := func(state string) (stdout string) {
		t.Helper()
		ready := filepath.Join(dir, state+".ready")
		edge := startMain(t, dir, ready, 5*time.Minute, []string{nodePackagesEnv + "=" + repo, "XDG_CACHE_HOME=" + cache},
			"--state-dir", filepath.Join(dir, state), "--ready-file", ready, "--api", "127.0.0.1:0", "--edge", "127.0.0.1:0")
		hostScript := filepath.Join(dir, state, "runtime", "host.mjs")
		time.Sleep(time.Second)
		if len(processesRunning(hostScript)) == 0 {
			t.Errorf("no runtime host runs %s\n%s", hostScript, edge.stderr.String())
		}
		edge.stop(t)
		return edge.stdout.String()
	}
	if out := start("first"); !strings.Contains(out, "installing the local edge's npm packages") || !strings.Contains(out, "npm packages installed in") {
		t.Errorf("first start outside a checkout did not say it installs its packages:\n%s", out)
	}
	if matches, _ := filepath.Glob(filepath.Join(cache, "kamuidash", "localedge-npm", "npm-*", "node_modules", "miniflare")); len(matches) != 1 {
		t.Errorf("installed packages under the cache: %v, want one miniflare", matches)
	}
	if out := start("second"); strings.Contains(out, "installing") {
		t.Errorf("the second start installed again:\n%s", out)
	}
}

// mainProcess is the local edge's command run by a test as a process of its own (the test
// binary, through mainEnv), with its output kept.
type mainProcess struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	exited         chan error
}

// startMain starts the command with args in dir (the test's own working directory when empty)
// and the extra environment env, and waits until the ready file exists; the test fails, with
// the command's output, if it exits first or is not ready within the given time.
func startMain(t *testing.T, dir, ready string, within time.Duration, env []string, args ...string) *mainProcess {
	t.Helper()
	p := &mainProcess{cmd: exec.Command(os.Args[0], args...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, exited: make(chan error, 1)}
	p.cmd.Dir = dir
	p.cmd.Env = append(append(os.Environ(), mainEnv+"=1"), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	must(t, "start the local edge", p.cmd.Start())
	go func() { p.exited <- p.cmd.Wait() }()
	for deadline := time.Now().Add(within); ; {
		if _, err := os.Stat(ready); err == nil {
			return p
		}
		select {
		case err := <-p.exited:
			t.Fatalf("exited before ready: %v\n%s\n%s", err, p.stdout.String(), p.stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = p.cmd.Process.Kill()
			t.Fatalf("not ready within %v\n%s\n%s", within, p.stdout.String(), p.stderr.String())
		}
	}
}

// stop sends SIGTERM and expects the command to exit 0 within a minute.
func (p *mainProcess) stop(t *testing.T) {
	t.Helper()
	must(t, "send SIGTERM", p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want 0\n%s", err, p.stderr.String())
		}
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		t.Fatal("still running a minute after SIGTERM")
	}
}
