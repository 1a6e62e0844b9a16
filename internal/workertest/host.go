// Package workertest runs Workers in the real workerd runtime (Miniflare from the repo's
// node_modules) for tests and benchmarks: it builds the edge Worker, writes a host
// configuration, starts host.mjs and collects the Worker's log lines.
package workertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Module is one Worker module, relative to HostConfig.ModulesRoot; the main module first.
type Module struct {
	Type string `json:"type"` // ESModule | CompiledWasm | Text | Data
	Path string `json:"path"`
}

// Object is an R2 object to seed.
type Object struct {
	Text        string `json:"text"`
	ContentType string `json:"contentType,omitempty"`
}

// HostConfig is host.mjs's configuration (see the comment at the top of host.mjs).
type HostConfig struct {
	ModulesRoot string                       `json:"modulesRoot"`
	Modules     []Module                     `json:"modules"`
	Bindings    map[string]string            `json:"bindings,omitempty"`
	KV          map[string]map[string]string `json:"kv,omitempty"`
	// KVBytes are binary values to seed (the name filter, route.BuildFilter): a string of KV
	// would not survive JSON as bytes. They travel base64-encoded.
	KVBytes map[string]map[string][]byte `json:"kvBytes,omitempty"`
	R2      map[string]map[string]Object `json:"r2,omitempty"`
	Origins map[string]string            `json:"origins,omitempty"`
	CountKV bool                         `json:"countKV,omitempty"`
	Cache   map[string]CacheEntry        `json:"cache,omitempty"`
	// FailKV and FailCache inject failures (they need CountKV): KV gets of these keys and
	// Cache API calls on URLs containing these substrings reject.
	FailKV    []string `json:"failKV,omitempty"`
	FailCache []string `json:"failCache,omitempty"`
	// SlowR2 delays R2 gets of keys containing one of these substrings by 300 ms (it needs
	// CountKV): a read the Worker makes beside another then comes back after it.
	SlowR2 []string `json:"slowR2,omitempty"`
	// IODelayMS makes every KV get, R2 get or head and Cache API lookup wait this many
	// milliseconds before it is made (it needs CountKV): a model of binding calls that are
	// network round trips, which in the local runtime they are not. Calls made side by side
	// wait side by side.
	IODelayMS int `json:"ioDelayMs,omitempty"`
	// CompatibilityDate defaults to host.mjs's own, CompatibilityFlags to none; the edge
	// Worker's tests pass route.WorkerCompatibilityDate and route.WorkerCompatibilityFlags,
	// what the provider uploads it with.
	CompatibilityDate  string   `json:"compatibilityDate,omitempty"`
	CompatibilityFlags []string `json:"compatibilityFlags,omitempty"`
	// Profile, when set, is where host.mjs writes a CPU profile of the Worker's isolate
	// (.cpuprofile JSON) recorded from "ready" until Close.
	Profile string `json:"profile,omitempty"`
}

// CacheEntry is a Cache API entry to seed (e.g. one without this deployment's marker).
type CacheEntry struct {
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Text    string            `json:"text"`
}

// EdgeModules are the modules scripts/build-worker.sh writes.
func EdgeModules() []Module {
	return []Module{
		{Type: "ESModule", Path: "worker.mjs"},
		{Type: "ESModule", Path: "wasm_exec.js"},
		{Type: "CompiledWasm", Path: "edge.wasm"},
	}
}

// RepoRoot finds the module root from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("workertest: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// CheckNodeModules fails (never skips) when Miniflare is not installed: the runtime tests
// are part of the ladder, and a missing runtime must be visible.
func CheckNodeModules(root string) error {
	if _, err := os.Stat(filepath.Join(root, "node_modules", "miniflare", "package.json")); err != nil {
		return errors.New("workertest: node_modules/miniflare is missing: run npm ci at the repo root")
	}
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("workertest: node is not on PATH: install Node.js ≥ 20, then run npm ci at the repo root")
	}
	return nil
}

// BuildWorker runs scripts/build-worker.sh into outDir and returns its output.
func BuildWorker(root, outDir string) (string, error) { return BuildTestWorker(root, outDir, "") }

// BuildTestWorker is BuildWorker with build tags of a test build added (tags, comma-separated:
// kamuidash_fault, worker-src/edge/wasm/fault_injected.go). Such a build is never uploaded.
func BuildTestWorker(root, outDir, tags string) (string, error) {
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "build-worker.sh"), outDir)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KAMUIDASH_WORKER_TAGS="+tags)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), errors.New("workertest: build-worker.sh failed: " + err.Error() + "\n" + string(out))
	}
	return string(out), nil
}

// Host is a running host.mjs.
type Host struct {
	URL string

	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}

	mu     sync.Mutex
	logs   []string
	stderr strings.Builder
	notify chan struct{}
}

// StartHost writes cfg next to the modules and starts host.mjs; it returns once the
// runtime serves requests.
func StartHost(ctx context.Context, root string, cfg HostConfig) (*Host, error) {
	if err := CheckNodeModules(root); err != nil {
		return nil, err
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "workertest-host-*.json")
	if err != nil {
		return nil, err
	}
	_, err = f.Write(b)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}

	cmd := exec.Command("node", filepath.Join(root, "internal", "workertest", "host.mjs"), f.Name())
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h := &Host{cmd: cmd, stdin: stdin, done: make(chan struct{}), notify: make(chan struct{}, 1)}
	cmd.Stderr = &lockedWriter{h: h}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan string, 1)
	go func() {
		defer close(h.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "ready "):
				ready <- strings.TrimPrefix(line, "ready ")
			case strings.HasPrefix(line, "log: "):
				h.mu.Lock()
				h.logs = append(h.logs, strings.TrimPrefix(line, "log: "))
				h.mu.Unlock()
				select {
				case h.notify <- struct{}{}:
				default:
				}
			}
		}
		_ = cmd.Wait()
		_ = os.Remove(f.Name()) // a leftover in the temporary directory only takes space
	}()
	timer := time.NewTimer(60 * time.Second)
	defer timer.Stop()
	select {
	case u := <-ready:
		h.URL = strings.TrimSuffix(u, "/")
		return h, nil
	case <-h.done:
		return nil, errors.New("workertest: host.mjs exited before it was ready:\n" + h.Stderr())
	case <-timer.C:
		h.Close()
		return nil, errors.New("workertest: host.mjs not ready within 60s:\n" + h.Stderr())
	case <-ctx.Done():
		h.Close()
		return nil, ctx.Err()
	}
}

type lockedWriter struct{ h *Host }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	if w.h.stderr.Len() < 1<<20 {
		w.h.stderr.Write(p)
	}
	return len(p), nil
}

// Stderr is what host.mjs and workerd wrote to stderr so far.
func (h *Host) Stderr() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.String()
}

// Logs returns the Worker's console lines so far.
func (h *Host) Logs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.logs...)
}

// WaitLog waits until a console line satisfies match (log lines arrive asynchronously
// after the response) and returns it.
func (h *Host) WaitLog(match func(string) bool, timeout time.Duration) (string, bool) {
	deadline := time.Now().Add(timeout)
	for {
		for _, l := range h.Logs() {
			if match(l) {
				return l, true
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return "", false
		}
		select {
		case <-h.notify:
		case <-time.After(min(left, 50*time.Millisecond)):
		}
	}
}

// Counts are the calls host.mjs's wrappers counted inside the runtime (HostConfig.CountKV):
// KV gets, Cache API matches and puts, R2 gets and heads.
type Counts struct {
	Reads, CacheMatches, CachePuts, R2Reads int
}

// Minus is what was counted between b and c.
func (c Counts) Minus(b Counts) Counts {
	return Counts{c.Reads - b.Reads, c.CacheMatches - b.CacheMatches, c.CachePuts - b.CachePuts, c.R2Reads - b.R2Reads}
}

// Plus is c and b counted together.
func (c Counts) Plus(b Counts) Counts {
	return Counts{c.Reads + b.Reads, c.CacheMatches + b.CacheMatches, c.CachePuts + b.CachePuts, c.R2Reads + b.R2Reads}
}

// Counts asks the host for its counts so far (GET http://kv-stats.host.invalid/), through client.
func (h *Host) Counts(client *http.Client) (Counts, error) {
	req, err := http.NewRequest("GET", h.URL+"/", nil)
	if err != nil {
		return Counts{}, err
	}
	req.Host = "kv-stats.host.invalid"
	resp, err := client.Do(req)
	if err != nil {
		return Counts{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	var c Counts
	err = json.NewDecoder(resp.Body).Decode(&c)
	return c, err
}

// PutKV writes value under key in the KV namespace ns while the Worker runs (PUT
// http://kv-stats.host.invalid/kv/<ns>/<key>, a host started with CountKV), through client.
func (h *Host) PutKV(client *http.Client, ns, key, value string) error {
	req, err := http.NewRequest("PUT", h.URL+"/kv/"+ns+"/"+url.PathEscape(key), strings.NewReader(value))
	if err != nil {
		return err
	}
	req.Host = "kv-stats.host.invalid"
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("KV put %s/%s: %s %s", ns, key, resp.Status, b)
	}
	return nil
}

// PID is host.mjs's process ID; workerd runs as its child.
func (h *Host) PID() int { return h.cmd.Process.Pid }

// Close stops host.mjs (closing stdin makes it dispose of workerd) and waits for it.
func (h *Host) Close() {
	// Closing stdin is the signal; should it fail, the wait below ends with the kill.
	_ = h.stdin.Close()
	select {
	case <-h.done:
	case <-time.After(15 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.done
	}
}
