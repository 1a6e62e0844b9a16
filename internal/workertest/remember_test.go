package workertest

import (
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// TestContentHitsRememberTheRoute runs the route lookup a content hit does not wait for back
// into the core once it is in (worker.mjs's remember, Handler.RememberRoute), in workerd: after
// the memo has expired, one content hit still makes the route lookup beside its content lookup,
// and the next ones make the content lookup alone. Its own host, with the shortest freshness
// budget, so that the memo expires within the test.
func TestContentHitsRememberTheRoute(t *testing.T) {
	budget := route.MinFreshnessBudget
	ttls, err := route.DeriveTTLs(budget)
	if err != nil {
		t.Fatal(err)
	}
	cfg := hostConfig
	cfg.Bindings = maps.Clone(hostConfig.Bindings)
	cfg.Bindings["FRESHNESS_BUDGET_SECONDS"] = "45"
	if budget != 45*time.Second {
		t.Fatalf("the minimum budget is %v: update the binding above", budget)
	}
	cfg.Cache, cfg.FailKV, cfg.FailCache = nil, nil, nil
	h := startOwnHost(t, cfg, 2*time.Minute)

	counts := func() Counts { return countsOf(t, h) }
	// get requests docs' home page and returns how it was delivered and the Cache API lookups
	// it made.
	get := func() (delivery string, lookups int) {
		t.Helper()
		before := counts().CacheMatches
		status, l := getRoot(t, h, "docs."+platform)
		if status != 200 {
			t.Fatalf("docs: status %d", status)
		}
		delivery, _ = l["delivery"].(string)
		return delivery, counts().CacheMatches - before
	}
	// settle waits for what a request left running after its response (puts, the remember).
	settle := func(what string, done func(Counts) bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !done(counts()); {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not done after 5 s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	if d, _ := get(); d != "static" {
		t.Fatalf("first request: delivery %q, want static (from the bucket)", d)
	}
	settle("the first request's puts", func(c Counts) bool { return c.CachePuts >= 2 })
	time.Sleep(ttls.Memo + 200*time.Millisecond)

	if d, n := get(); d != "content-cache" || n != 2 {
		t.Fatalf("after the memo expired: delivery %q with %d lookups, want content-cache with 2 (content and route)", d, n)
	}
	// The route lookup comes back in the background; give the remember a moment.
	time.Sleep(100 * time.Millisecond)
	for i := range 3 {
		if d, n := get(); d != "content-cache" || n != 1 {
			t.Errorf("content hit %d after the remember: delivery %q with %d lookups, want content-cache with 1", i+1, d, n)
		}
	}
}

// TestRouteEntryStoredAfterTheResponse: the route-cache entry a request planned is made and
// stored once its response has left (worker.mjs's storeWaiting, the adapter's kamuiPuts), in
// workerd, and serves the host's next request once the isolate's memo has let go of it: no KV
// read then.
func TestRouteEntryStoredAfterTheResponse(t *testing.T) {
	ttls, err := route.DeriveTTLs(route.MinFreshnessBudget)
	if err != nil {
		t.Fatal(err)
	}
	cfg := hostConfig
	cfg.Bindings = maps.Clone(hostConfig.Bindings)
	cfg.Bindings["FRESHNESS_BUDGET_SECONDS"] = strconv.Itoa(int(route.MinFreshnessBudget / time.Second))
	cfg.Cache, cfg.FailKV, cfg.FailCache = nil, nil, nil
	h := startOwnHost(t, cfg, 2*time.Minute)

	host := "shop." + platform
	status, l := getRoot(t, h, host)
	if status != 200 || l["route_source"] != "kv" {
		t.Fatalf("first request: status %d, log %v; want the record from KV", status, l)
	}
	for deadline := time.Now().Add(5 * time.Second); countsOf(t, h).CachePuts < 1; {
		if time.Now().After(deadline) {
			t.Fatal("no route-cache put 5 s after the response")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(ttls.Memo + 200*time.Millisecond)

	status, l = getRoot(t, h, host)
	if status != 200 || l["route_source"] != "route-cache" || l["kv_reads"] != 0.0 {
		t.Errorf("after the memo expired: status %d, log %v; want the route-cache entry and no KV read", status, l)
	}
}
