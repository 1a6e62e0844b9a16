package workertest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A panic in Go ends the isolate's Go program (an export has no caller to recover it), as a
// bug anywhere in the core would, and wasm_exec.js then hands back whatever the stopped call
// left. The request that met it gets the adapter's 500; a request in flight on the same
// instance fails too, once it comes back to it (its state went with the program); and the
// next request is served by a new instance: one failure costs the isolate a restart, not every
// request until the runtime recycles it. The panic is injected by a test build of the Worker
// (the kamuidash_fault tag), never the one uploaded.
func TestStoppedGoInstanceIsReplaced(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := BuildTestWorker(root, out, "kamuidash_fault"); err != nil {
		t.Fatal(err)
	}
	cfg := hostConfig
	cfg.ModulesRoot = out
	h := startOwnHost(t, cfg, time.Minute)
	useHost(t, h)
	if r := do(t, "GET", "shop.kamui.test", "/before", nil, ""); r.status != 200 {
		t.Fatalf("before the panic: %d %q", r.status, r.body)
	}

	// In flight: its upstream answers after 5 s and its record's timeout is 300 ms, so it
	// comes back to Go (the timeout's answer) after the panic below.
	inFlight := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("GET", h.URL+"/in-flight", nil)
		req.Host = "slow.kamui.test"
		resp, err := client.Do(req)
		if err != nil {
			inFlight <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		inFlight <- resp.StatusCode
	}()
	select {
	case <-slowArrivals:
	case <-time.After(10 * time.Second):
		t.Fatal("the in-flight request never reached its upstream")
	}

	p := do(t, "GET", "shop.kamui.test", "/__kamuidash_fault/panic", nil, "")
	if p.status != 500 || !strings.Contains(p.body, "Internal error") {
		t.Errorf("the request that met the panic: %d %q; want the adapter's 500", p.status, p.body)
	}
	if status := <-inFlight; status != 500 {
		t.Errorf("the request in flight on the stopped instance: %d; want the adapter's 500", status)
	}
	if _, ok := h.WaitLog(func(l string) bool { return strings.Contains(l, `"msg":"edge.instance_retired"`) }, 5*time.Second); !ok {
		t.Error("no edge.instance_retired line")
	}

	// A new instance serves every later request, of every kind.
	for _, c := range []struct{ host, path, body string }{
		{"shop.kamui.test", "/after", ""},
		{"cas.kamui.test", "/guide/start.html", "<h1>cas start</h1>"},
		{"casshard.kamui.test", "/pages/3.html", "<p>page 3</p>"},
	} {
		r := do(t, "GET", c.host, c.path, nil, "")
		if r.status != 200 || c.body != "" && r.body != c.body {
			t.Errorf("%s%s after the panic: %d %q", c.host, c.path, r.status, r.body)
		}
	}
	retired := 0
	for _, l := range h.Logs() {
		if strings.Contains(l, `"msg":"edge.instance_retired"`) {
			retired++
		}
	}
	if retired != 1 {
		t.Errorf("%d instances retired; want 1", retired)
	}
}
