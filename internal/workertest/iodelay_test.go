package workertest

import (
	"testing"
	"time"
)

// The bench's model of binding calls as network round trips (HostConfig.IODelayMS): every
// KV read, bucket read and Cache API lookup waits the delay before it is made, so a request
// takes at least the delay once per sequential round its log line counts (a static site's
// GET has no upstream fetch among them), and a request that makes no binding call (a host
// refused before any lookup) waits for none.
func TestIODelayWaitsOncePerRound(t *testing.T) {
	const delay = time.Second
	cfg := hostConfig
	cfg.IODelayMS = int(delay / time.Millisecond)
	h := startOwnHost(t, cfg, time.Minute)
	useHost(t, h)

	start := time.Now()
	r := do(t, "GET", "cas.kamui.test", "/guide/start.html?cold", identity(nil), "")
	took := time.Since(start)
	if r.status != 200 {
		t.Fatalf("cold GET of a site: %d %q", r.status, r.body)
	}
	l := logOf(t, r.header.Get("X-Request-Id"))
	rounds := num(l, "io_rounds")
	if rounds < 3 {
		t.Fatalf("cold GET of a site: log %v, want at least the lookups, the record and the object (3 rounds)", l)
	}
	if want := time.Duration(rounds) * delay; took < want {
		t.Errorf("cold GET of a site took %v over %d rounds, want at least %v: the delay was not waited once per round", took, rounds, want)
	}

	start = time.Now()
	r = do(t, "GET", "bad_host.kamui.test", "/", nil, "")
	took = time.Since(start)
	if l := logOf(t, r.header.Get("X-Request-Id")); num(l, "io_rounds") != 0 || took >= delay {
		t.Errorf("a host refused before any lookup: %d in %v, log %v; want no round and no wait", r.status, took, l)
	}
}
