package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/rollout"
)

// localEdge is one local edge started as the built provider's `localedge` sub-command, on a
// fresh state dir.
type localEdge struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    string
	// env is the local edge's env file: the provider settings (CLOUDFLARE_API_TOKEN,
	// KAMUIDASH_*) and its own signing secret.
	env map[string]string
}

// startEdge starts the local edge from binary with its state under dir and waits until it
// is ready. rateLimit is its --api-rate-limit.
func startEdge(ctx context.Context, repo, binary, dir string, rateLimit cfapi.RateLimit) (*localEdge, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ready := filepath.Join(dir, "ready")
	logPath := filepath.Join(dir, "localedge.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer func() { _ = logFile.Close() }() // the child writes through a descriptor of its own
	cmd := exec.Command(binary, "localedge", "--state-dir", filepath.Join(dir, "state"),
		"--api", "127.0.0.1:0", "--edge", "127.0.0.1:0", "--ready-file", ready,
		// Custom hostnames become active a second after creation (no TXT records to publish),
		// and KV writes reach the Workers at once: the bench measures the API, not waits.
		"--auto-validate", "1s", "--kv-propagation", "10ms",
		"--api-rate-limit", rateLimit.String())
	cmd.Dir = repo // Miniflare is found in the checkout's node_modules
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the local edge: %w", err)
	}
	e := &localEdge{cmd: cmd, exited: make(chan struct{}), log: logPath}
	go func() { _ = cmd.Wait(); close(e.exited) }()
	deadline := time.After(3 * time.Minute)
	for {
		if _, err := os.Stat(ready); err == nil {
			if e.env, err = rollout.ReadEnvFile(ready); err != nil {
				e.stop()
				return nil, err
			}
			return e, nil
		}
		select {
		case <-e.exited:
			return nil, fmt.Errorf("the local edge exited before it was ready:\n%s", tail(logPath, 20))
		case <-deadline:
			e.stop()
			return nil, fmt.Errorf("the local edge was not ready within 3 minutes:\n%s", tail(logPath, 20))
		case <-ctx.Done():
			e.stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stop interrupts the local edge (it stops workerd and everything else it started) and
// waits for it, killing it after 30 s.
func (e *localEdge) stop() {
	_ = e.cmd.Process.Signal(os.Interrupt)
	select {
	case <-e.exited:
	case <-time.After(30 * time.Second):
		_ = e.cmd.Process.Kill()
		<-e.exited
	}
}

// apiBase is the API's base URL (ending in cfapi.APIPrefix).
func (e *localEdge) apiBase() string { return e.env["KAMUIDASH_API_BASE_URL"] }

// resetCalls resets the local edge's call accounting and returns what it counted until then.
func (e *localEdge) resetCalls(ctx context.Context) (cfapi.CallStats, error) {
	var st cfapi.CallStats
	root := strings.TrimSuffix(e.apiBase(), cfapi.APIPrefix)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, root+cfapi.AdminPrefix+"/calls", nil)
	if err != nil {
		return st, err
	}
	req.Header.Set("Authorization", "Bearer "+e.env["CLOUDFLARE_API_TOKEN"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, fmt.Errorf("resetting the call accounting: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	var env struct {
		Success bool            `json:"success"`
		Result  cfapi.CallStats `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || !env.Success {
		return st, fmt.Errorf("resetting the call accounting: HTTP %d (%v)", resp.StatusCode, err)
	}
	return env.Result, nil
}

// tail is the last n lines of a file, for error messages.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
