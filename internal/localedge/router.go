package localedge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

// routerPackage is the router's main package inside this repository.
const routerPackage = "./worker-src/router/cmd/kamuidash-router"

// localRouter runs the router from worker-src/router on loopback. It starts once a loaded
// Worker has a SIGNING_SECRET (the secret the router verifies with) and restarts when that
// secret changes. The secret reaches it through the environment, never argv or a log line.
type localRouter struct {
	binary           string
	upstreamTemplate string
	namespacePrefix  string
	log              *slog.Logger
	output           io.Writer

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	secret string
	url    string
}

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
		fmt.Fprintln(progress, "building the router from the bundled sources (cached by input hash)…")
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
	fmt.Fprintln(progress, "building the router (go build "+routerPackage+")…")
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
	if !r.runningLocked() {
		return ""
	}
	return r.url
}

// runningLocked says whether the process started last is still alive.
func (r *localRouter) runningLocked() bool {
	if r.cmd == nil {
		return false
	}
	select {
	case <-r.exited:
		return false
	default:
		return true
	}
}

// scriptsLoaded picks the signing secret from the loaded scripts (the first, by name, that
// has one) and (re)starts the router when it changed.
func (r *localRouter) scriptsLoaded(scripts []*cfapi.Script) {
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
	if secret == r.secret && (secret == "" || r.runningLocked()) {
		return
	}
	r.stopLocked()
	r.secret = secret
	if secret == "" {
		return
	}
	if err := r.startLocked(); err != nil {
		r.log.Error("starting the router failed", "error", err)
	}
}

func (r *localRouter) startLocked() error {
	listen, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	admin, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	cmd := exec.Command(r.binary,
		"--listen", listen, "--admin-listen", admin,
		"--namespace-prefix", r.namespacePrefix,
		"--upstream-template", r.upstreamTemplate,
		"--forwarded-proto", "http")
	cmd.Env = append(withoutRouterEnv(os.Environ()), "KAMUI_ROUTER_SECRET="+r.secret)
	cmd.Stdout, cmd.Stderr = r.output, r.output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		close(exited)
		r.log.Info("router exited", "error", err)
	}()
	if err := waitListening(listen, exited); err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return err
	}
	r.cmd, r.exited, r.url = cmd, exited, "http://"+listen
	r.log.Info("router started", "url", r.url)
	return nil
}

// stopLocked sends SIGTERM (the router drains) and waits, killing it after 10 s.
func (r *localRouter) stopLocked() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(10 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.exited
	}
	r.cmd, r.exited, r.url = nil, nil, ""
}

func (r *localRouter) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
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

func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitListening waits until addr accepts connections or the process exits.
func waitListening(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("the router exited at start (see its output above)")
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the router did not listen on " + addr + " within 30s")
}
