package localedge

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/option"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"

	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

// requireRuntime fails (never skips) when Miniflare or node is missing: the local edge is
// part of the test ladder, and a missing runtime must be visible.
func requireRuntime(t *testing.T) {
	t.Helper()
	wd, _ := os.Getwd()
	if _, err := edgeruntime.FindNodeModules("", wd); err != nil {
		t.Fatal(err)
	}
	if _, err := edgeruntime.FindNode(); err != nil {
		t.Fatal(err)
	}
}

// runningEdge is a local edge started in-process by startEdge.
type runningEdge struct {
	env      map[string]string // the ready file, parsed
	stdout   *syncBuffer
	stderr   *syncBuffer
	stop     func()
	finished chan error
}

// startEdge runs Main on free loopback ports and waits for its ready file.
func startEdge(t *testing.T, stateDir string, extraArgs ...string) *runningEdge {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	ctx, cancel := context.WithCancel(context.Background())
	e := &runningEdge{stdout: &syncBuffer{}, stderr: &syncBuffer{}, stop: cancel, finished: make(chan error, 1)}
	args := append([]string{"--state-dir", stateDir, "--api", "127.0.0.1:0", "--edge", "127.0.0.1:0",
		"--ready-file", ready, "--zone", "kamui.test", "--kv-propagation", "200ms"}, extraArgs...)
	go func() {
		code := Main(ctx, args, e.stdout, e.stderr)
		if code != 0 {
			e.finished <- &exitError{code}
		}
		close(e.finished)
	}()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if b, err := os.ReadFile(ready); err == nil {
			e.env = parseEnv(t, b)
			break
		}
		select {
		case err := <-e.finished:
			t.Fatalf("the local edge stopped before it was ready (%v)\nstdout:\n%s\nstderr:\n%s", err, e.stdout, e.stderr)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("the local edge was not ready within 3 minutes\nstdout:\n%s\nstderr:\n%s", e.stdout, e.stderr)
		}
	}
	t.Cleanup(func() { e.shutdown(t) })
	return e
}

// shutdown stops the edge and checks that it exits cleanly (code 0); a second call is a no-op.
func (e *runningEdge) shutdown(t *testing.T) {
	t.Helper()
	e.stop()
	select {
	case err, open := <-e.finished:
		if open && err != nil {
			t.Errorf("the local edge exited with %v\nstderr:\n%s", err, e.stderr)
		}
	case <-time.After(time.Minute):
		t.Errorf("the local edge did not stop within a minute")
	}
}

type exitError struct{ code int }

func (e *exitError) Error() string { return "exit code " + strconv.Itoa(e.code) }

func parseEnv(t *testing.T, b []byte) map[string]string {
	t.Helper()
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "export ")
		if !ok {
			t.Fatalf("env line without export: %q", sc.Text())
		}
		k, v, _ := strings.Cut(line, "=")
		env[k] = strings.Trim(v, "'")
	}
	return env
}

func (e *runningEdge) client() *cloudflare.Client {
	return cloudflare.NewClient(
		option.WithBaseURL(e.env["KAMUIDASH_API_BASE_URL"]+"/"),
		option.WithAPIToken(e.env["CLOUDFLARE_API_TOKEN"]),
		option.WithMaxRetries(0),
	)
}

// get sends a request to the edge with the given Host.
func (e *runningEdge) get(t *testing.T, host, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.env["KAMUIDASH_EDGE_URL"]+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// eventually polls the edge until the answer satisfies ok, within a bounded deadline: uploads
// reload workerd and KV writes propagate asynchronously, as on Cloudflare.
func (e *runningEdge) eventually(t *testing.T, what, host, path string, ok func(int, string) bool) (int, string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		status, body := e.get(t, host, path)
		if ok(status, body) {
			return status, body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: last answer HTTP %d %q\nstderr:\n%s", what, status, body, e.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// workerPart is one module of a Worker upload.
type workerPart struct {
	name, contentType string
	content           []byte
}

// workerUpload builds the multipart body the provider sends: a "metadata" JSON part and one
// part per module named by its file name (cloudflare-go's own encoder would send dotted
// metadata fields, which is why the provider builds the body itself).
func workerUpload(t *testing.T, metadata map[string]any, parts ...workerPart) (contentType string, body []byte) {
	t.Helper()
	modules := make([]kdcf.WorkerModule, len(parts))
	for i, p := range parts {
		modules[i] = kdcf.WorkerModule{Name: p.name, MIMEType: p.contentType, Content: p.content}
	}
	contentType, body, err := kdcf.EncodeWorkerUpload(metadata, modules)
	if err != nil {
		t.Fatal(err)
	}
	return contentType, body
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// syncBuffer is a bytes.Buffer safe for the edge's goroutines and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
