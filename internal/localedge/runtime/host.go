// Package runtime runs the local edge's Workers in the real workerd: it writes host.mjs (a
// small Node program, embedded here) into the state dir, starts it with the system node and
// Miniflare from the repo's node_modules, and drives it over stdin with one JSON command per
// line (configure the Workers, write or delete a KV key, purge Cache API entries).
//
// KV lives in Miniflare's own store, persisted under the work dir but treated as a derived
// copy: the Go side seeds it from the API server's state at start and replays every change
// after the emulated propagation delay, so the API server stays the only source of truth.
package runtime

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/procgroup"
)

//go:embed host.mjs
var hostScript []byte

// Config configures a Host.
type Config struct {
	// NodeModules is the node_modules directory holding Miniflare (see FindNodeModules).
	NodeModules string
	// WorkDir holds host.mjs and Miniflare's persisted KV and R2 data. Created if missing.
	WorkDir string
	// OriginURL is where every outbound fetch of a Worker goes (the tunnel emulation), with
	// the hostname and scheme the Worker asked for in the X-Localedge-Origin-Host and
	// X-Localedge-Origin-Scheme headers.
	OriginURL string
	// Logger receives the Workers' console lines and host.mjs's stderr. Default slog.Default().
	Logger *slog.Logger
	// Progress, when set, receives a line every few seconds while workerd starts. Default: none.
	Progress io.Writer
}

// OriginHostHeader carries the hostname a Worker fetched to the tunnel emulation.
const OriginHostHeader = "X-Localedge-Origin-Host"

// OriginSchemeHeader carries the scheme of the URL a Worker fetched ("https" or "http").
const OriginSchemeHeader = "X-Localedge-Origin-Scheme"

// Host is a running host.mjs with its workerd.
type Host struct {
	cfg   Config
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}

	writeMu sync.Mutex // one command line at a time on stdin
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan reply
	url     string
	stderr  strings.Builder
}

type reply struct {
	result json.RawMessage
	err    error
}

// Start writes host.mjs into cfg.WorkDir and starts it. The Workers are loaded by the first
// Configure call, after which URL serves them.
func Start(cfg Config) (*Host, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	node, err := FindNode()
	if err != nil {
		return nil, err
	}
	if !hasMiniflare(cfg.NodeModules) {
		return nil, fmt.Errorf("%s: %w", cfg.NodeModules, ErrNoMiniflare)
	}
	// Node runs in WorkDir, so every path it is given must not depend on where it runs.
	for _, p := range []*string{&cfg.WorkDir, &cfg.NodeModules} {
		if *p, err = filepath.Abs(*p); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o700); err != nil {
		return nil, err
	}
	script := filepath.Join(cfg.WorkDir, "host.mjs")
	if err := os.WriteFile(script, hostScript, 0o600); err != nil {
		return nil, err
	}
	// createRequire needs a file inside the directory whose node_modules it should search.
	anchor := filepath.Join(filepath.Dir(cfg.NodeModules), "package.json")
	cmd := exec.Command(node, script, anchor)
	cmd.Dir = cfg.WorkDir
	// Its own process group, so a Ctrl-C in the terminal reaches the Go process first and the
	// shutdown happens in order (closing stdin makes host.mjs dispose of workerd).
	procgroup.Detach(cmd)
	h := &Host{cfg: cfg, cmd: cmd, done: make(chan struct{}), waiting: map[int]chan reply{}}
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting node: %w", err)
	}
	go h.readStderr(stderr)
	go h.readStdout(stdout)
	return h, nil
}

func (h *Host) readStdout(r io.Reader) {
	defer close(h.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "log: "):
			level, text, _ := strings.Cut(strings.TrimPrefix(line, "log: "), " ")
			h.cfg.Logger.Log(context.Background(), logLevel(level), "worker", "line", text)
		case strings.HasPrefix(line, "ok "), strings.HasPrefix(line, "err "):
			h.deliver(line)
		default:
			h.cfg.Logger.Warn("runtime host", "line", line)
		}
	}
	_ = h.cmd.Wait()
	h.mu.Lock()
	for id, ch := range h.waiting {
		ch <- reply{err: errors.New("the runtime host exited: " + h.stderrTail())}
		delete(h.waiting, id)
	}
	h.mu.Unlock()
}

// deliver hands "ok <id> <json>" or "err <id> <message>" to the waiting caller.
func (h *Host) deliver(line string) {
	status, rest, _ := strings.Cut(line, " ")
	idText, payload, _ := strings.Cut(rest, " ")
	id, _ := strconv.Atoi(idText)
	h.mu.Lock()
	ch := h.waiting[id]
	delete(h.waiting, id)
	h.mu.Unlock()
	if ch == nil {
		return
	}
	if status == "ok" {
		ch <- reply{result: json.RawMessage(payload)}
	} else {
		ch <- reply{err: errors.New(payload)}
	}
}

func (h *Host) readStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		h.mu.Lock()
		if h.stderr.Len() < 64<<10 {
			h.stderr.WriteString(line + "\n")
		}
		h.mu.Unlock()
		h.cfg.Logger.Warn("runtime host stderr", "line", line)
	}
}

// stderrTail is the end of host.mjs's stderr, for error messages. Callers hold h.mu.
func (h *Host) stderrTail() string {
	s := h.stderr.String()
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	if s == "" {
		return "(no output)"
	}
	return s
}

// call sends one command and waits for its answer. Commands are applied in the order sent.
func (h *Host) call(ctx context.Context, op string, fields map[string]any, progress bool) (json.RawMessage, error) {
	h.mu.Lock()
	h.nextID++
	id := h.nextID
	ch := make(chan reply, 1)
	h.waiting[id] = ch
	h.mu.Unlock()
	fields["id"], fields["op"] = id, op
	line, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	h.writeMu.Lock()
	_, err = h.stdin.Write(append(line, '\n'))
	h.writeMu.Unlock()
	if err != nil {
		h.forget(id)
		return nil, fmt.Errorf("runtime host %s: %w", op, err)
	}
	var tick <-chan time.Time
	if progress && h.cfg.Progress != nil {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		tick = t.C
	}
	start := time.Now()
	for {
		select {
		case r := <-ch:
			if r.err != nil {
				return nil, fmt.Errorf("runtime host %s: %w", op, r.err)
			}
			return r.result, nil
		case <-tick:
			_, _ = fmt.Fprintf(h.cfg.Progress, "  still waiting for workerd (%s)…\n", time.Since(start).Round(time.Second))
		case <-ctx.Done():
			h.forget(id)
			return nil, ctx.Err()
		}
	}
}

func (h *Host) forget(id int) {
	h.mu.Lock()
	delete(h.waiting, id)
	h.mu.Unlock()
}

// URL is where the Miniflare entry listens (it changes when a Configure restarts workerd).
func (h *Host) URL() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.url
}

// Close stops host.mjs (closing stdin makes it dispose of workerd) and waits for it.
func (h *Host) Close() error {
	// Closing stdin is the signal; should it fail, the wait below ends with the kill.
	_ = h.stdin.Close()
	select {
	case <-h.done:
		return nil
	case <-time.After(15 * time.Second):
		_ = procgroup.KillGroup(h.cmd.Process)
		<-h.done
		return errors.New("the runtime host did not stop within 15s and was killed")
	}
}

// logLevel maps a workerd log level to slog's.
func logLevel(level string) slog.Level {
	switch level {
	case "error":
		return slog.LevelError
	case "warn":
		return slog.LevelWarn
	case "debug":
		return slog.LevelDebug
	}
	return slog.LevelInfo
}
