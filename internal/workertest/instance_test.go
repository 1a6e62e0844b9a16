package workertest

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A fatal error in Go (one no recover stops: a runtime bug, memory exhausted) ends the
// isolate's Go program, and wasm_exec.js then hands back whatever the stopped call left. The
// request that met it gets the adapter's 500; a request in flight on the same instance fails
// too, once it comes back to it (its state went with the program); and the next request is
// served by a new instance: one failure costs the isolate a restart, not every request until
// the runtime recycles it. The error is injected by a test build of the Worker (the
// kamuidash_fault tag), never the one uploaded.
func TestStoppedGoInstanceIsReplaced(t *testing.T) {
	h := startFaultHost(t)
	if r := do(t, "GET", "shop.kamui.test", "/before", nil, ""); r.status != 200 {
		t.Fatalf("before the panic: %d %q", r.status, r.body)
	}

	// In flight: it comes back to Go after the fatal error below.
	inFlight := slowRequestInFlight(t, h)

	p := do(t, "GET", "shop.kamui.test", "/__kamuidash_fault/crash", nil, "")
	if p.status != 500 || !strings.Contains(p.body, "Internal error") {
		t.Errorf("the request that met the fatal error: %d %q; want the adapter's 500", p.status, p.body)
	}
	if status := <-inFlight; status != 500 {
		t.Errorf("the request in flight on the stopped instance: %d; want the adapter's 500", status)
	}
	if _, ok := awaitLine(h, `"msg":"edge.instance_retired"`); !ok {
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
			t.Errorf("%s%s after the fatal error: %d %q", c.host, c.path, r.status, r.body)
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

// slowRequestInFlight sends a request to h that waits on its upstream, and returns once the
// upstream has it; the channel gets its status (0: no answer). The upstream answers after 5 s
// and the record's timeout is 300 ms, so within 300 ms of the return the request comes back to
// Go, with the timeout, for the 504 that answers it.
func slowRequestInFlight(t *testing.T, h *Host) <-chan int {
	t.Helper()
	for len(slowArrivals) > 0 { // other tests' arrivals: room for this one's
		<-slowArrivals
	}
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
	for arrived := ""; arrived != "/in-flight"; {
		select {
		case arrived = <-slowArrivals: // another test's request, left from before, is passed over
		case <-time.After(10 * time.Second):
			t.Fatal("the in-flight request never reached its upstream")
		}
	}
	return inFlight
}

// startFaultHost starts a workerd of the test's own with the test build of the Worker (the
// kamuidash_fault tag: worker-src/edge/wasm/fault_injected.go) and points do at it.
func startFaultHost(t *testing.T) *Host {
	t.Helper()
	cfg := hostConfig
	cfg.ModulesRoot = faultWorker(t)
	h := startOwnHost(t, cfg, time.Minute)
	useHost(t, h)
	return h
}

// faultWorker builds the test build once for every test that needs it, beside the package's
// own build (TestMain removes both).
var faultWorker = func() func(t *testing.T) string {
	var once sync.Once
	var dir string
	var err error
	return func(t *testing.T) string {
		t.Helper()
		once.Do(func() {
			var root string
			if root, err = RepoRoot(); err == nil {
				dir = filepath.Join(workerDir, "fault")
				_, err = BuildTestWorker(root, dir, "kamuidash_fault")
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
}()

// awaitLine waits up to 5 s for a console line of h holding s, and returns it.
func awaitLine(h *Host, s string) (string, bool) {
	return h.WaitLog(func(l string) bool { return strings.Contains(l, s) }, 5*time.Second)
}

// awaitLines waits up to 5 s for h to have logged n console lines holding s, and returns how
// many it has then. A Worker's console line reaches the host after the response it was logged
// for may have: counting right after the response races with it.
func awaitLines(h *Host, s string, n int) int {
	h.WaitLog(func(l string) bool { return strings.Contains(l, s) && linesOf(h, s) >= n }, 5*time.Second)
	return linesOf(h, s)
}

// linesOf counts h's console lines holding s.
func linesOf(h *Host, s string) int {
	n := 0
	for _, l := range h.Logs() {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// A request the runner decides (a site laid out by prefix reads its objects there) can meet
// the program's end inside kamuiRun, or inside the kamuiSettle of a read it waited for. It
// fails at once with the adapter's 500, nothing it was waiting for is left rejected with
// nobody to hear it, and the next request is served by a new instance. A fatal error, not a
// panic: the runner recovers a panic as a lost request.
func TestGoInstanceStoppedInTheRunner(t *testing.T) {
	h := startFaultHost(t)
	// The first request of an instance reads the name filter in the runner first: warmed,
	// the runner's first read is the object's.
	if r := do(t, "GET", "docs.kamui.test", "/guide/start.html", nil, ""); r.status != 200 {
		t.Fatalf("before the faults: %d %q", r.status, r.body)
	}
	for i, fault := range []string{"crash-in-run", "crash-in-settle"} {
		began := time.Now()
		r := do(t, "GET", "docs.kamui.test", "/__kamuidash_fault/"+fault, nil, "")
		if r.status != 500 || !strings.Contains(r.body, "Internal error") {
			t.Errorf("%s: %d %q; want the adapter's 500", fault, r.status, r.body)
		}
		if took := time.Since(began); took > 2*time.Second {
			t.Errorf("%s: answered after %v", fault, took)
		}
		if r := do(t, "GET", "docs.kamui.test", "/guide/start.html", nil, ""); r.status != 200 || r.body != "<h1>start</h1>" {
			t.Errorf("after %s: %d %q", fault, r.status, r.body)
		}
		if n := awaitLines(h, `"msg":"edge.instance_retired"`, i+1); n != i+1 {
			t.Errorf("after %s: %d instances retired; want %d", fault, n, i+1)
		}
	}
	noUnhandledRejections(t, h)
}

// noUnhandledRejections fails t for every rejection h's Worker left unhandled so far
// (host.mjs logs them).
func noUnhandledRejections(t *testing.T, h *Host) {
	t.Helper()
	time.Sleep(100 * time.Millisecond) // a rejection is reported once its turn is over
	for _, l := range h.Logs() {
		if strings.Contains(l, `"msg":"host.unhandled_rejection"`) {
			t.Errorf("unhandled rejection: %s", l)
		}
	}
}

// Requests parked in the runner of an instance that stops, each waiting for a read of its
// own, fail with the adapter's 500 as soon as that read is back, not when the runtime
// cancels them as hung: a request is woken by an event of its own (the reject of a promise
// it awaits, made in another request's event, leaves it with nothing of its own to wait
// for). Every other request of the burst is served, none with another's answer, and one new
// instance serves what comes after.
func TestGoInstanceStoppedUnderConcurrentRuns(t *testing.T) {
	h := startFaultHost(t)
	const n = 25
	type got struct {
		path string
		r    result
	}
	results := make(chan got, n)
	for i := range n {
		path := fmt.Sprintf("/guide/start.html?i=%d", i)
		if i == n-1 {
			path = "/__kamuidash_fault/crash-in-settle"
		}
		go func() {
			r, err := tryDo("GET", "docs.kamui.test", path, nil, "")
			if err != nil {
				r.body = err.Error() // reported below, as a wrong answer
			}
			results <- got{path, r}
		}()
	}
	for range n {
		g := <-results
		switch {
		case g.r.status == 500 && strings.Contains(g.r.body, "Internal error at the edge."):
		case g.r.status == 200 && g.r.body == "<h1>start</h1>" && !strings.HasPrefix(g.path, "/__kamuidash_fault/"):
		default:
			t.Errorf("%s: %d %q; want its page or the adapter's 500", g.path, g.r.status, g.r.body)
		}
	}
	if r := do(t, "GET", "docs.kamui.test", "/guide/start.html", nil, ""); r.status != 200 || r.body != "<h1>start</h1>" {
		t.Errorf("after the burst: %d %q", r.status, r.body)
	}
	if n := awaitLines(h, `"msg":"edge.instance_retired"`, 1); n != 1 {
		t.Errorf("%d instances retired; want 1", n)
	}
	noUnhandledRejections(t, h)
}

// The program can stop in an event rather than an export: a goroutine an export made ready
// runs at the next poke. The stop is found there, so the requests after it make no call into
// a stopped program (whose exports may do anything); the request whose poke it was gets the
// adapter's 500, and every other request is served.
func TestGoInstanceStoppedInAnEvent(t *testing.T) {
	h := startFaultHost(t)
	for _, path := range []string{"/warm", "/__kamuidash_fault/crash-later"} {
		if r := do(t, "GET", "shop.kamui.test", path, nil, ""); r.status != 200 {
			t.Fatalf("%s: %d %q", path, r.status, r.body)
		}
	}
	failed := 0
	for i := 0; i < 40 && linesOf(h, `"msg":"edge.instance_retired"`) == 0; i++ {
		r := do(t, "GET", "shop.kamui.test", "/after", nil, "")
		switch {
		case r.status == 500 && strings.Contains(r.body, "Internal error at the edge."):
			failed++
		case r.status != 200:
			t.Errorf("request %d: %d %q", i, r.status, r.body)
		}
	}
	if failed != 1 {
		t.Errorf("%d requests failed; want the one whose poke met the stop", failed)
	}
	l, ok := awaitLine(h, `"msg":"edge.instance_retired"`)
	if !ok || !strings.Contains(l, `during poke`) {
		t.Errorf("retired: %q; want it found at the poke", l)
	}
	if r := do(t, "GET", "shop.kamui.test", "/later", nil, ""); r.status != 200 {
		t.Errorf("after the stop: %d %q", r.status, r.body)
	}
	noUnhandledRejections(t, h)
}
