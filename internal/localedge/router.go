package localedge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/procgroup"
	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

// routerPackage is the router's main package inside this repository.
const routerPackage = "./worker-src/router/cmd/kamuidash-router"

// localRouter runs the router from worker-src/router on loopback, in one of two ways:
//
//   - following the Worker (the default): it starts once a loaded Worker has a SIGNING_SECRET
//     (the secret the router verifies with) and restarts when that secret changes, so a local
//     edge needs no secret of its own;
//   - from a secret dir (secretDir, --router-secret-dir): it takes its keys from files laid out
//     like the router's mounted Kubernetes Secret (signing-secret, optional signing-secret-next)
//     and ignores the Worker, as the cluster's router does. A change of the files is rolled out
//     as a Deployment would be: the new process starts first, the tunnel switches to it, then
//     the old one drains and stops, so no request is dropped.
//
// The keys reach the process through its environment, never argv or a log line.
type localRouter struct {
	binary           string
	upstreamTemplate string
	namespacePrefix  string
	secretDir        string // "" to follow the Worker
	log              *slog.Logger
	output           io.Writer

	mu       sync.Mutex
	current  *routerProcess
	keys     routerKeys // what current runs with
	draining sync.WaitGroup
	closed   bool
}

// routerKeys are the router's signing keys: current verifies always, next (optional) while
// the secret rotates.
type routerKeys struct{ current, next string }

// routerProcess is one running router.
type routerProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
	url    string
}

// Files of the router's secret dir: the keys of its Kubernetes Secret (modules/cluster-ingress).
const (
	secretFileCurrent = "signing-secret"
	secretFileNext    = "signing-secret-next"
)

// secretDirPoll is how often the secret dir is read for changes.
const secretDirPoll = 200 * time.Millisecond

// switchGrace is how long a replaced router keeps listening after the tunnel switched away from
// it, so a request that picked its URL just before the switch still reaches it (the cluster's
// equivalent is the time endpoints take to drop a terminating pod).
const switchGrace = time.Second

// buildRouter provides the router binary in binDir. With the provider's bundled sources it
// is the same hermetic build, cached by input hash, that the provider packages (so an
// installed provider needs no checkout); otherwise, or on a host the bundle does not target,
// it is `go build` of worker-src/router in the checkout around the working directory.
func buildRouter(ctx context.Context, binDir string, sources fs.FS, progress io.Writer) (string, error) {
	if err := os.MkdirAll(binDir, 0o700); err != nil {
		return "", err
	}
	out := filepath.Join(binDir, "kamuidash-router")
	host := bundle.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
	if sources != nil && slices.Contains(bundle.RouterPlatforms, host) {
		_, _ = fmt.Fprintln(progress, "building the router from the bundled sources (cached by input hash)…")
		router, err := (&bundle.Builder{Sources: sources}).Router(ctx)
		if err != nil {
			return "", fmt.Errorf("building the router from the bundled sources: %w", err)
		}
		bin, err := router.Binary(host)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(out, bin, 0o700); err != nil {
			return "", err
		}
		return out, nil
	}
	root, err := findRepoRoot()
	if err != nil {
		return "", err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("--router needs the Go toolchain on PATH to build worker-src/router")
	}
	_, _ = fmt.Fprintln(progress, "building the router (go build "+routerPackage+")…")
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", out, routerPackage)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the router: %w\n%s", err, b)
	}
	return out, nil
}

// findRepoRoot walks up from the working directory to the checkout holding the router.
func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, routerPackage, "main.go")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("--router builds worker-src/router from this repository: run the local edge from inside the checkout")
		}
		dir = parent
	}
}

// URL is the router's address, or "" while it is not running.
func (r *localRouter) URL() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.current.running() {
		return ""
	}
	return r.current.url
}

// running says whether the process is still alive.
func (p *routerProcess) running() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// scriptsLoaded picks the signing secret from the loaded scripts (the first, by name, that
// has one) and (re)starts the router when it changed. With a secret dir it does nothing: the
// router's keys do not follow the Worker there, as in a cluster.
func (r *localRouter) scriptsLoaded(scripts []*cfapi.Script) {
	if r.secretDir != "" {
		return
	}
	var secret string
	for _, sc := range scripts {
		if s, ok := edgeruntime.SigningSecret(sc); ok {
			secret = s
			break
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Same secret and still alive: nothing to do. A router that died is started again here,
	// at the next Worker reload.
	if r.closed || secret == r.keys.current && (secret == "" || r.current.running()) {
		return
	}
	r.current.stop()
	r.current, r.keys = nil, routerKeys{current: secret}
	if secret == "" {
		return
	}
	p, err := r.start(r.keys)
	if err != nil {
		r.log.Error("starting the router failed", "error", err)
		return
	}
	r.current = p
}

// followSecretDir runs the router from the secret dir until ctx ends. It reads the dir every
// secretDirPoll and rolls the router out when the keys changed (or the router died), once they
// read the same twice in a row: a file caught half-written, or one of two files updated, is not
// rolled out. (The kubelet swaps a Secret's files atomically; a hand edit may not.) Keys the
// router refused to start with are not tried again until the files change; the running router
// keeps serving meanwhile, as a Deployment's old pods do while the new ones crash.
func (r *localRouter) followSecretDir(ctx context.Context) {
	var previous, failed routerKeys
	var lastProblem string
	tick := time.NewTicker(secretDirPoll)
	defer tick.Stop()
	for {
		keys, err := readSecretDir(r.secretDir)
		if problem := errorText(err); problem != lastProblem {
			if err != nil {
				r.log.Warn("the router's secret dir is unusable; the router keeps its keys", "dir", r.secretDir, "error", err)
			}
			lastProblem = problem
		}
		if err == nil && keys == previous && keys != failed {
			r.mu.Lock()
			changed, alive := keys != r.keys, r.current.running()
			r.mu.Unlock()
			if (changed || !alive) && !r.roll(keys) {
				failed = keys
			}
		}
		previous = keys
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// readSecretDir reads the keys as the router reads its Secret's files (trailing newlines
// ignored): signing-secret is required, signing-secret-next optional.
func readSecretDir(dir string) (routerKeys, error) {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		return strings.TrimRight(string(b), "\r\n"), err
	}
	current, err := read(secretFileCurrent)
	if err != nil {
		return routerKeys{}, err
	}
	if current == "" {
		return routerKeys{}, errors.New(secretFileCurrent + " is empty")
	}
	next, err := read(secretFileNext)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return routerKeys{}, err
	}
	return routerKeys{current: current, next: next}, nil
}

// roll replaces the running router with one that has keys: the new process first, then the
// switch (new requests go to it), then the old one drains in the background. It reports
// whether the new router started.
func (r *localRouter) roll(keys routerKeys) bool {
	p, err := r.start(keys)
	if err != nil {
		r.log.Error("starting the router with the secret dir's keys failed; the running one (if any) keeps serving", "error", err)
		return false
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		p.stop()
		return true
	}
	old := r.current
	r.current, r.keys = p, keys
	if old != nil {
		r.draining.Add(1)
	}
	r.mu.Unlock()
	r.log.Info("router rolled out", "url", p.url, "next_signing_key", keys.next != "")
	if old != nil {
		go func() {
			defer r.draining.Done()
			time.Sleep(switchGrace)
			old.stop()
		}()
	}
	return true
}

// start runs a router process with keys and waits until it listens.
func (r *localRouter) start(keys routerKeys) (*routerProcess, error) {
	// The router binds ports of its own choosing and says which in its first log line: a
	// port picked free here and handed over could be taken by another process in between,
	// and the edge would then wait on, and send traffic to, whatever took it.
	cmd := exec.Command(r.binary,
		"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--namespace-prefix", r.namespacePrefix,
		"--upstream-template", r.upstreamTemplate,
		"--forwarded-proto", "http")
	cmd.Env = append(withoutRouterEnv(os.Environ()), "KAMUI_ROUTER_SECRET="+keys.current)
	if keys.next != "" {
		cmd.Env = append(cmd.Env, "KAMUI_ROUTER_NEXT_SECRET="+keys.next)
	}
	started := newStartWatch(r.output)
	cmd.Stdout, cmd.Stderr = started, r.output
	procgroup.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		close(exited)
		r.log.Info("router exited", "error", err)
	}()
	listen, err := started.wait(exited, 30*time.Second)
	if err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return nil, err
	}
	p := &routerProcess{cmd: cmd, exited: exited, url: "http://" + listen}
	r.log.Info("router started", "url", p.url)
	return p, nil
}

// stop sends SIGTERM (the router drains) and waits, killing it after 10 s.
func (p *routerProcess) stop() {
	if p == nil {
		return
	}
	_ = procgroup.Terminate(p.cmd.Process)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// Close stops the router and any replaced one still draining; nothing starts after it.
func (r *localRouter) Close() {
	r.mu.Lock()
	r.closed = true
	p := r.current
	r.current = nil
	r.mu.Unlock()
	p.stop()
	r.draining.Wait()
}

// withoutRouterEnv drops KAMUI_ROUTER_* so the user's shell cannot override what the local
// edge passes on the command line.
func withoutRouterEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "KAMUI_ROUTER_") {
			out = append(out, kv)
		}
	}
	return out
}

// startWatch passes a router's standard output on and reads the address it listens on from
// its "router started" log line (the router logs JSON lines, that one once its listeners
// are bound). Only the process's output goroutine writes to it.
type startWatch struct {
	out     io.Writer
	line    []byte // the start of a line not yet ended
	done    bool
	started chan string
}

// maxStartLine bounds the line startWatch keeps while it waits for its end; a longer one
// is not the start line anyway.
const maxStartLine = 64 << 10

func newStartWatch(out io.Writer) *startWatch {
	return &startWatch{out: out, started: make(chan string, 1)}
}

func (w *startWatch) Write(p []byte) (int, error) {
	for rest := p; !w.done && len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if len(w.line)+len(rest) <= maxStartLine {
				w.line = append(w.line, rest...)
			}
			break
		}
		w.line = append(w.line, rest[:i]...)
		rest = rest[i+1:]
		var l struct{ Msg, Listen string }
		if json.Unmarshal(w.line, &l) == nil && l.Msg == "router started" && l.Listen != "" {
			w.done = true
			w.started <- l.Listen
		}
		w.line = w.line[:0]
	}
	return w.out.Write(p)
}

// wait returns the address the router listens on once it says so, or an error when it
// exits first or says nothing within limit.
func (w *startWatch) wait(exited <-chan struct{}, limit time.Duration) (string, error) {
	select {
	case addr := <-w.started:
		return addr, nil
	case <-exited:
		return "", errors.New("the router exited at start (see its output above)")
	case <-time.After(limit):
		return "", fmt.Errorf("the router did not say it listened within %v", limit)
	}
}
