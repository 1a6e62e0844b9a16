package localedge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// TestLocalRouter_SecretDirRotationDropsNoRequest rehearses a rotation of the signing secret
// against the router the local edge runs from a secret dir, with requests flowing all along
// (each picks the router's URL afresh, as the tunnel emulation does): the router learns the
// next key (signing-secret-next appears), the signer switches to it, the router drops the old
// one. Every request must be answered by the backend. A key the router was never given is
// refused, so the loop's check can fail.
func TestLocalRouter_SecretDirRotationDropsNoRequest(t *testing.T) {
	root, err := findRepoRoot()
	must(t, "find the repo root", err)
	t.Chdir(root)
	bin, err := buildRouter(context.Background(), t.TempDir(), nil, io.Discard)
	must(t, "build the router", err)

	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "backend") }))
	defer backend.Close()
	_, port, _ := net.SplitHostPort(backend.Listener.Addr().String())

	dir := t.TempDir()
	writeKey := func(name, key string) {
		must(t, "write "+name, os.WriteFile(filepath.Join(dir, name), []byte(key+"\n"), 0o600))
	}
	oldKey, newKey, strangerKey := randomKey(t), randomKey(t), randomKey(t)
	writeKey(secretFileCurrent, oldKey)

	var output syncBuffer
	r := &localRouter{binary: bin, upstreamTemplate: "127.0.0.1:{port}", namespacePrefix: "tenant-", secretDir: dir,
		log: slog.New(slog.NewTextHandler(&output, nil)), output: &output}
	ctx, stop := context.WithCancel(context.Background())
	following := make(chan struct{})
	go func() { r.followSecretDir(ctx); close(following) }()
	defer func() { stop(); <-following; r.Close() }()
	waitForURL := func(what, old string) string {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			if u := r.URL(); u != "" && u != old {
				return u
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the router was not (re)started\n%s", what, output.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	url := waitForURL("with signing-secret", "")

	client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	send := func(key, id string) (int, string) {
		c := route.Context{Method: http.MethodGet, Host: "shop.kamui.test", Target: "/", App: "shop",
			Upstream: "tenant-shop/web:" + port, RequestID: id, Time: time.Now()}
		req, err := http.NewRequest(c.Method, r.URL()+c.Target, nil)
		if err != nil {
			return 0, err.Error()
		}
		c.SetHeaders(req.Header, []byte(key))
		res, err := client.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer func() { _ = res.Body.Close() }()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}

	// The signer (the Worker) and its traffic: one request after another, counted per phase.
	var signingKey atomic.Pointer[string]
	signingKey.Store(&oldKey)
	var (
		mu       sync.Mutex
		phase    = "old key only"
		counts   = map[string]int{}
		failures []string
	)
	loopDone, loopStop := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(loopDone)
		for i := 0; ; i++ {
			select {
			case <-loopStop:
				return
			default:
			}
			status, body := send(*signingKey.Load(), "req-"+strconv.Itoa(i))
			mu.Lock()
			counts[phase]++
			if status != http.StatusOK || body != "backend" {
				failures = append(failures, fmt.Sprintf("%s: HTTP %d %q", phase, status, body))
			}
			mu.Unlock()
		}
	}()
	enter := func(p string) {
		// Let the loop send through the state just reached before moving on.
		mu.Lock()
		before := counts[phase]
		mu.Unlock()
		for {
			mu.Lock()
			n := counts[phase]
			mu.Unlock()
			if n >= before+5 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		phase = p
		mu.Unlock()
	}

	// 1. The router learns the next key.
	enter("router learns the next key")
	writeKey(secretFileNext, newKey)
	url = waitForURL("with signing-secret-next", url)
	// 2. The signer switches to it.
	enter("signer uses the next key")
	signingKey.Store(&newKey)
	// 3. The router drops the old key.
	enter("router drops the old key")
	writeKey(secretFileCurrent, newKey)
	must(t, "remove signing-secret-next", os.Remove(filepath.Join(dir, secretFileNext)))
	waitForURL("with the new signing-secret alone", url)
	enter("done")
	close(loopStop)
	<-loopDone

	mu.Lock()
	defer mu.Unlock()
	for _, f := range failures {
		t.Error(f)
	}
	for _, p := range []string{"old key only", "router learns the next key", "signer uses the next key", "router drops the old key"} {
		if counts[p] == 0 {
			t.Errorf("no request was sent while %s", p)
		}
	}
	t.Logf("requests per phase: %v", counts)
	if status, _ := send(oldKey, "req-old"); status != http.StatusForbidden {
		t.Errorf("signed with the dropped key: HTTP %d, want 403", status)
	}
	if status, _ := send(strangerKey, "req-stranger"); status != http.StatusForbidden {
		t.Errorf("signed with a key the router never had: HTTP %d, want 403", status)
	}

	// Keys the router refuses (too short) leave the running one serving, as a Deployment's
	// old pods keep serving while the new ones crash.
	writeKey(secretFileCurrent, "too-short")
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(output.String(), "starting the router with the secret dir's keys failed") {
		if time.Now().After(deadline) {
			t.Fatalf("the router was never started with the short key\n%s", output.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status, body := send(newKey, "req-after-refusal"); status != http.StatusOK || body != "backend" {
		t.Errorf("after the router refused new keys: HTTP %d %q, want the running router's 200", status, body)
	}
	for _, key := range []string{oldKey, newKey, strangerKey} {
		if strings.Contains(output.String(), key) {
			t.Error("a signing key appears in the router's or the local edge's log")
		}
	}
}

func randomKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	must(t, "random key", err)
	return hex.EncodeToString(b)
}
