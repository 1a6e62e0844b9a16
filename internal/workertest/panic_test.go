package workertest

import (
	"strings"
	"testing"
	"time"
)

// A panic in any call into Go is a lost request: the request that met it gets the adapter's
// 500, and the instance goes on serving, the same one (no instance is retired). A panic a
// hostile request could provoke at will would otherwise cost the isolate a new instance each
// time, and fail every request in flight with it. The panics are injected by a test build of
// the Worker (the kamuidash_fault tag), never the one uploaded.
func TestPanicIsALostRequest(t *testing.T) {
	h := startFaultHost(t)
	if r := do(t, "GET", "shop.kamui.test", "/before", nil, ""); r.status != 200 {
		t.Fatalf("before the panics: %d %q", r.status, r.body)
	}
	// Each fault on a request that makes that call: a custom host not resolved yet asks for
	// its lookups; a known app's request is forwarded, and its upstream's answer finished.
	for _, c := range []struct{ host, fault, export string }{
		{"shop.kamui.test", "panic", "decide"},
		{"www.shop.example", "panic-in-lookups", "lookups"},
		{"shop.kamui.test", "panic-in-finish", "finish"},
	} {
		// Each export panics once in this test (the host is the test's own), so its line is new.
		lostToPanic(t, h, c.host, c.fault, c.export)
		if r := do(t, "GET", c.host, "/after", nil, ""); r.status != 200 {
			t.Errorf("after %s: %d %q", c.fault, r.status, r.body)
		}
	}

	// The route-cache entries are made after the response, so a panic making them costs the
	// request nothing: a host first resolved here plans them.
	r := do(t, "GET", "cas.kamui.test", "/__kamuidash_fault/panic-in-puts", nil, "")
	if r.status == 500 {
		t.Errorf("panic-in-puts: %d %q; the response leaves before the entries are made", r.status, r.body)
	}
	if _, ok := awaitLine(h, `"msg":"edge.panic_recovered","export":"puts"`); !ok {
		t.Error("panic-in-puts: no edge.panic_recovered line naming puts")
	}
	if r := do(t, "GET", "cas.kamui.test", "/guide/start.html", nil, ""); r.status != 200 || r.body != "<h1>cas start</h1>" {
		t.Errorf("after panic-in-puts: %d %q", r.status, r.body)
	}

	if n := linesOf(h, `"msg":"edge.instance_retired"`); n != 0 {
		t.Errorf("%d instances retired; a panic should retire none", n)
	}
	noUnhandledRejections(t, h)
}

// A request answered lost never comes back, so a panic after its exchange was kept for its
// next call takes the exchange out of the adapter's table. Left there, such exchanges would
// fill the table, and the next ones kept would take the slots of requests still in flight.
// The panic's line says how many stay kept: none after each panic alone, and with a request
// in flight that one, which then gets its answer (the upstream's timeout) as if nothing had
// happened.
func TestPanicLeavesNothingKept(t *testing.T) {
	h := startFaultHost(t)
	if r := do(t, "GET", "shop.kamui.test", "/before", nil, ""); r.status != 200 {
		t.Fatalf("before the panics: %d %q", r.status, r.body)
	}
	// A known app's request is kept in decide, to be finished once forwarded; a custom host
	// not resolved yet is kept in decide for its lookups and again in lookups.
	for _, c := range []struct{ host, fault, export string }{
		{"shop.kamui.test", "panic-after-keep", "decide"},
		{"www.shop.example", "panic-after-put", "lookups"},
	} {
		if l := lostToPanic(t, h, c.host, c.fault, c.export); l != "" && !strings.Contains(l, `"kept":0}`) {
			t.Errorf("%s: %s; want no exchange kept", c.fault, l)
		}
	}

	inFlight := slowRequestInFlight(t, h)
	if r := do(t, "GET", "shop.kamui.test", "/__kamuidash_fault/panic-after-keep", nil, ""); r.status != 500 {
		t.Errorf("the panic beside a request in flight: %d %q; want the adapter's 500", r.status, r.body)
	}
	if _, ok := awaitLine(h, `"export":"decide","kept":1}`); !ok {
		t.Error(`no edge.panic_recovered line with the request in flight kept ("kept":1)`)
	}
	if status := <-inFlight; status != 504 {
		t.Errorf("the request in flight beside the panic: %d; want its upstream's timeout, 504", status)
	}
	if n := linesOf(h, `"msg":"edge.instance_retired"`); n != 0 {
		t.Errorf("%d instances retired; a panic should retire none", n)
	}
	noUnhandledRejections(t, h)
}

// lostToPanic sends a request to host that meets fault, checks that it got the adapter's 500,
// and returns the edge.panic_recovered line naming export, the first one h logged ("" when
// none came, which it reports).
func lostToPanic(t *testing.T, h *Host, host, fault, export string) string {
	t.Helper()
	r := do(t, "GET", host, "/__kamuidash_fault/"+fault, nil, "")
	if r.status != 500 || !strings.Contains(r.body, "Internal error at the edge.") {
		t.Errorf("%s: %d %q; want the adapter's 500", fault, r.status, r.body)
	}
	l, ok := awaitLine(h, `"msg":"edge.panic_recovered","export":"`+export+`"`)
	if !ok {
		t.Errorf("%s: no edge.panic_recovered line naming %s", fault, export)
	}
	return l
}

// What a recovered panic leaves half done is not undone: a lock it held stays held. The next
// call that needs the lock cannot wait for it inside an export, so the program stops there,
// and worker.mjs starts a new instance, as after any fatal error: no request waits for a lock
// nobody will release, and later requests are served.
func TestPanicHoldingALockCostsTheInstance(t *testing.T) {
	h := startFaultHost(t)
	if r := do(t, "GET", "shop.kamui.test", "/before", nil, ""); r.status != 200 {
		t.Fatalf("before the panic: %d %q", r.status, r.body)
	}
	began := time.Now()
	r := do(t, "GET", "shop.kamui.test", "/__kamuidash_fault/panic-holding-lock", nil, "")
	if r.status != 500 || !strings.Contains(r.body, "Internal error at the edge.") {
		t.Errorf("the request that met the panic: %d %q; want the adapter's 500", r.status, r.body)
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("answered after %v", took)
	}
	if _, ok := awaitLine(h, `"msg":"edge.instance_retired"`); !ok {
		t.Error("no edge.instance_retired line")
	}
	if linesOf(h, `{"msg":"edge.panic_with_lock_held","export":"decide"}`) != 1 {
		t.Error("no edge.panic_with_lock_held line naming decide")
	}
	if r := do(t, "GET", "shop.kamui.test", "/after", nil, ""); r.status != 200 {
		t.Errorf("after the panic: %d %q", r.status, r.body)
	}
	noUnhandledRejections(t, h)
}

// A call into Go that waits for what nothing will ever send (a deadlock) does not return: the
// js/wasm runtime unwinds it back to JS from the middle, with whatever its result slot held,
// while the output buffer holds another request's answer. The export never says it finished,
// so worker.mjs retires the instance rather than read that answer: the request gets the
// adapter's 500, and the next request a new instance.
func TestCallThatNeverFinishesCostsTheInstance(t *testing.T) {
	h := startFaultHost(t)
	// The answer a blocked call would be read against: another host's, just made.
	if r := do(t, "GET", "cas.kamui.test", "/guide/start.html", nil, ""); r.status != 200 || r.body != "<h1>cas start</h1>" {
		t.Fatalf("before the fault: %d %q", r.status, r.body)
	}
	r := do(t, "GET", "shop.kamui.test", "/__kamuidash_fault/block", nil, "")
	if r.status != 500 || !strings.Contains(r.body, "Internal error at the edge.") {
		t.Errorf("the blocked request: %d %q; want the adapter's 500", r.status, r.body)
	}
	l, ok := awaitLine(h, `"msg":"edge.instance_retired"`)
	if !ok || !strings.Contains(l, "did not finish") {
		t.Errorf("retired: %q; want it retired as a call that did not finish", l)
	}
	for _, c := range []struct{ host, path string }{{"shop.kamui.test", "/after"}, {"cas.kamui.test", "/guide/start.html"}} {
		if r := do(t, "GET", c.host, c.path, nil, ""); r.status != 200 {
			t.Errorf("%s%s after the fault: %d %q", c.host, c.path, r.status, r.body)
		}
	}
	noUnhandledRejections(t, h)
}
