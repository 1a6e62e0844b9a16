package edge

import (
	"slices"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// An app reached by several hosts has its record read from ROUTES once: the record is kept under
// the app's own key (its platform host's memo and route-cache entries) and reused by its custom
// hosts after their mapping is read.

func upstreamOf(t *testing.T, ex *Exchange) string {
	t.Helper()
	if ex.Plan.Forward == nil {
		t.Fatalf("status %d, want a forward", ex.Plan.Status)
	}
	return ex.Plan.Forward.Header.Get(route.HeaderUpstream)
}

func TestOneRecordReadPerApp(t *testing.T) {
	w := newWorld(t)
	w.domains.data["shop.example.org"] = mapping(t, route.DomainMapping{App: "shop", Status: route.StatusActive})

	// Platform host, then custom hosts of the same app in the same isolate: one ROUTES read.
	upstreamOf(t, w.serve(w.h, get("shop.kamui.test", "/")))
	custom := w.serve(w.h, get("www.shop.example", "/"))
	upstreamOf(t, custom)
	if !slices.Equal(w.routes.reads, []string{"shop"}) || !slices.Equal(w.domains.reads, []string{"www.shop.example"}) {
		t.Fatalf("reads: ROUTES %v, DOMAINS %v; want the record once and the mapping", w.routes.reads, w.domains.reads)
	}
	if custom.line.KVReads != 2 { // DOMAINS' filter (absent) and the mapping
		t.Errorf("the custom host's line counts %d KV reads, want 2", custom.line.KVReads)
	}

	// Once the memo has let go (the route cache keeps entries longer), the app's route-cache
	// entry serves its other custom host: the isolate stored it, and knows it is still there.
	w.clock.Advance(w.h.Config.TTLs.Memo + time.Second)
	other := w.serve(w.h, get("shop.example.org", "/"))
	upstreamOf(t, other)
	if len(w.routes.reads) != 1 {
		t.Errorf("the app's entry did not serve: ROUTES reads %v", w.routes.reads)
	}
	// Its four waits, one after another: the content and route-cache lookups (side by side),
	// the mapping, the app's route-cache entry, the upstream fetch.
	if other.line.IORounds != 4 {
		t.Errorf("the custom host's line counts %d I/O rounds, want 4 (the app's entry is a wait of its own)", other.line.IORounds)
	}

	// Another isolate of the colo finds a custom host's own entry, as any isolate would.
	h2 := w.handler(t)
	upstreamOf(t, w.serve(h2, get("shop.example.org", "/")))
	if len(w.routes.reads) != 1 {
		t.Errorf("another isolate: the host's own entry did not serve: ROUTES reads %v", w.routes.reads)
	}
	// For a third host of the app it knows of no entry of the app's, and reads ROUTES rather
	// than wait for a lookup that mostly misses (appEntryLikely).
	w.domains.data["shop.example.net"] = mapping(t, route.DomainMapping{App: "shop", Status: route.StatusActive})
	upstreamOf(t, w.serve(h2, get("shop.example.net", "/")))
	if len(w.routes.reads) != 2 {
		t.Errorf("another isolate, a third host: ROUTES reads %v, want a second", w.routes.reads)
	}

	// Custom host first: its ROUTES read is kept under the app's key, so the platform host and
	// the app's other custom host read nothing more from ROUTES.
	w2 := newWorld(t)
	w2.domains.data["shop.example.org"] = mapping(t, route.DomainMapping{App: "shop", Status: route.StatusActive})
	upstreamOf(t, w2.serve(w2.h, get("www.shop.example", "/")))
	upstreamOf(t, w2.serve(w2.h, get("shop.example.org", "/")))
	upstreamOf(t, w2.serve(w2.h, get("shop.kamui.test", "/")))
	upstreamOf(t, w2.serve(w2.handler(t), get("shop.kamui.test", "/")))
	if !slices.Equal(w2.routes.reads, []string{"shop"}) {
		t.Errorf("custom host first: ROUTES reads %v, want one", w2.routes.reads)
	}
	// The mapping is still the host's own: the probe of a custom host reports its revision.
	_, www, _ := route.EncodeDomainMapping(route.DomainMapping{App: "shop", Status: route.StatusActive})
	if got := w2.serve(w2.h, w2.probe("www.shop.example", www.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMapping {
		t.Errorf("probe of the custom host: %q", got)
	}
}

// TestAppRecordExpiresWithItsFirstRead: a host resolved through an app's entry gets no new lease:
// its own route-cache entry and memo entry end when the app's record was due to, so the record is
// never served older than the budget allows, however many hosts pass it on.
func TestAppRecordExpiresWithItsFirstRead(t *testing.T) {
	w := newWorld(t)
	ttl := w.h.Config.TTLs
	upstreamOf(t, w.serve(w.h, get("shop.kamui.test", "/"))) // record read at t0

	w.clock.Advance(ttl.RouteCache - 2*time.Second)
	ex := w.serve(w.h, get("www.shop.example", "/")) // the memo has let go: the app's entry
	upstreamOf(t, ex)
	if len(w.routes.reads) != 1 {
		t.Fatalf("ROUTES reads %v", w.routes.reads)
	}
	var hostPut *CachePut
	for i, p := range ex.Plan.CachePuts {
		if p.Key == route.RouteCacheKey(testPlatform, "www.shop.example") {
			hostPut = &ex.Plan.CachePuts[i]
		}
	}
	if hostPut == nil || hostPut.Entry.Header.Get("Cache-Control") != "max-age=2" {
		t.Fatalf("the host's entry from a record read %v ago: %+v; want max-age=2", ttl.RouteCache-2*time.Second, hostPut)
	}

	// Past the record's route-cache lifetime, a third isolate finds neither entry and reads
	// ROUTES again.
	w.clock.Advance(2 * time.Second)
	upstreamOf(t, w.serve(w.handler(t), get("www.shop.example", "/")))
	if len(w.routes.reads) != 2 {
		t.Errorf("after the app's entry expired: ROUTES reads %v, want a second", w.routes.reads)
	}
}

// TestChangedAppRecordNotServedStale: the record changes in KV; its custom host, in an isolate and
// colo that hold the old one under the app's key, serves the new one within the budget.
func TestChangedAppRecordNotServedStale(t *testing.T) {
	w := newWorld(t)
	ttl := w.h.Config.TTLs
	old := upstreamOf(t, w.serve(w.h, get("shop.kamui.test", "/")))
	moved := dynamicRecord("shop")
	moved.Dynamic.Upstream = "tenant-shop/web-v2:8080"
	w.routes.data["shop"] = record(t, moved)

	deadline := w.clock.Now().Add(ttl.Budget)
	var last string
	for w.clock.Now().Before(deadline) {
		w.clock.Advance(time.Second)
		last = upstreamOf(t, w.serve(w.h, get("www.shop.example", "/")))
	}
	if last != moved.Dynamic.Upstream {
		t.Errorf("after the budget (%v) the custom host still forwards to %q (was %q)", ttl.Budget, last, old)
	}
	// The worst case the budget allows for a positive route, and no more: memo + route cache
	// (the fake KV has no edge cache).
	w2 := newWorld(t)
	upstreamOf(t, w2.serve(w2.h, get("shop.kamui.test", "/")))
	w2.routes.data["shop"] = record(t, moved)
	firstNew, seen := time.Duration(0), false
	for elapsed := time.Duration(0); elapsed <= ttl.Budget && !seen; elapsed += time.Second {
		if upstreamOf(t, w2.serve(w2.h, get("www.shop.example", "/"))) == moved.Dynamic.Upstream {
			firstNew, seen = elapsed, true
		}
		w2.clock.Advance(time.Second)
	}
	if !seen || firstNew > ttl.RouteCache+ttl.Memo {
		t.Errorf("the new record showed after %v; want within route cache + memo (%v)", firstNew, ttl.RouteCache+ttl.Memo)
	}
}

// TestHintedAppLookedUpBesideTheMapping: a custom host this isolate resolved before, whose own
// route-cache entry is gone (evicted) while its app's is not, has the app's entry looked up
// beside the mapping's read, not after it: one wait fewer, and still no second ROUTES read. When
// the mapping names another app since, the early lookup is left unused and that app resolved.
func TestHintedAppLookedUpBesideTheMapping(t *testing.T) {
	w := newWorld(t)
	upstreamOf(t, w.serve(w.h, get("www.shop.example", "/"))) // the mapping, the record, both entries
	evict := func(host string) {
		w.cache.mu.Lock()
		delete(w.cache.entries, route.RouteCacheKey(testPlatform, host))
		w.cache.mu.Unlock()
	}
	evict("www.shop.example")
	w.clock.Advance(w.h.Config.TTLs.Memo + time.Second)
	hinted := w.serve(w.h, get("www.shop.example", "/"))
	upstreamOf(t, hinted)
	if !slices.Equal(w.routes.reads, []string{"shop"}) {
		t.Fatalf("ROUTES reads %v, want the first one only (the app's entry serves)", w.routes.reads)
	}

	// The same request in the same state but without the hint (the memo started over) waits for
	// the app's entry after the mapping.
	w2 := newWorld(t)
	upstreamOf(t, w2.serve(w2.h, get("www.shop.example", "/")))
	w2.cache.mu.Lock()
	delete(w2.cache.entries, route.RouteCacheKey(testPlatform, "www.shop.example"))
	w2.cache.mu.Unlock()
	w2.clock.Advance(w2.h.Config.TTLs.Memo + time.Second)
	w2.h.mu.Lock()
	delete(w2.h.memo, "www.shop.example")
	w2.h.mu.Unlock()
	unhinted := w2.serve(w2.h, get("www.shop.example", "/"))
	upstreamOf(t, unhinted)
	if len(w2.routes.reads) != 1 {
		t.Fatalf("without the hint: ROUTES reads %v, want the first one only", w2.routes.reads)
	}
	if unhinted.line.IORounds != hinted.line.IORounds+1 {
		t.Errorf("I/O rounds: %d with the hint, %d without; want one fewer with it", hinted.line.IORounds, unhinted.line.IORounds)
	}

	// The mapping moved to another app: the hint's lookup goes unused, the new app's record serves.
	w.routes.data["cart"] = record(t, dynamicRecord("cart"))
	w.domains.data["www.shop.example"] = mapping(t, route.DomainMapping{App: "cart", Status: route.StatusActive})
	evict("www.shop.example")
	w.clock.Advance(w.h.Config.TTLs.Memo + w.h.Config.TTLs.DomainsKV + time.Second)
	moved := w.serve(w.h, get("www.shop.example", "/"))
	if got := upstreamOf(t, moved); got != dynamicRecord("cart").Dynamic.Upstream {
		t.Errorf("after the mapping moved: upstream %q, want cart's", got)
	}
}

// TestAppEntryLookedUpOnlyWhenLikelyThere: between a custom host's mapping and its ROUTES read,
// the app's route-cache entry is looked up only when the isolate knows it stored or read that
// entry and it has not expired since; otherwise the host goes from the mapping straight to ROUTES.
func TestAppEntryLookedUpOnlyWhenLikelyThere(t *testing.T) {
	w := newWorld(t)
	appKey := route.RouteCacheKey(testPlatform, "shop.kamui.test")
	upstreamOf(t, w.serve(w.h, get("www.shop.example", "/"))) // stores the host's and the app's entries
	if slices.Contains(w.cache.matched, appKey) {
		t.Errorf("a fresh isolate looked the app's entry up: %q", w.cache.matched)
	}

	// Both entries have expired, and the isolate knows it.
	w.clock.Advance(w.h.Config.TTLs.RouteCache + time.Second)
	w.cache.matched = nil
	upstreamOf(t, w.serve(w.h, get("www.shop.example", "/")))
	if slices.Contains(w.cache.matched, appKey) {
		t.Errorf("looked up the app's expired entry: %q", w.cache.matched)
	}
	if !slices.Equal(w.routes.reads, []string{"shop", "shop"}) {
		t.Fatalf("ROUTES reads %v, want a second", w.routes.reads)
	}

	// Only the host's entry is gone: the app's is looked up, and serves.
	w.cache.mu.Lock()
	delete(w.cache.entries, route.RouteCacheKey(testPlatform, "www.shop.example"))
	w.cache.mu.Unlock()
	w.clock.Advance(w.h.Config.TTLs.Memo + time.Second)
	w.cache.matched = nil
	upstreamOf(t, w.serve(w.h, get("www.shop.example", "/")))
	if !slices.Contains(w.cache.matched, appKey) || len(w.routes.reads) != 2 {
		t.Errorf("with the app's entry alive: looked up %q, ROUTES reads %v; want the entry and no third read", w.cache.matched, w.routes.reads)
	}
}

// TestRouteEntryMadeWhenAsked: a route-cache entry is planned unmade (the adapter makes it once
// the response has left, wasm.kamuiPuts); made later, it keeps the lifetime its KV read gave
// it, and one whose lifetime ran out meanwhile is not stored at all.
func TestRouteEntryMadeWhenAsked(t *testing.T) {
	w := newWorld(t)
	ttl := w.h.Config.TTLs
	ex := w.h.Serve(get("shop.kamui.test", "/")) // the record read now, no put made
	upstreamOf(t, ex)
	if len(ex.Plan.CachePuts) != 1 {
		t.Fatalf("puts %+v, want the host's entry", ex.Plan.CachePuts)
	}
	put := ex.Plan.CachePuts[0]
	late := put // the same entry, made past its lifetime below
	if put.Entry.Header != nil || w.h.decoded.decodes != 1 || len(w.h.decoded.entries) != 0 {
		t.Fatalf("the entry was made while the request was decided: %+v (decodes %d, entries kept %d)",
			put.Entry, w.h.decoded.decodes, len(w.h.decoded.entries))
	}

	w.clock.Advance(ttl.RouteCache - 3*time.Second)
	if !put.Make() || put.Entry.Header.Get("Cache-Control") != "max-age=3" || put.Entry.Header.Get(routeEntryHeader) == "" {
		t.Fatalf("made %v after its read: %+v; want max-age=3", ttl.RouteCache-3*time.Second, put.Entry)
	}
	if !put.Make() || put.Entry.Header.Get("Cache-Control") != "max-age=3" {
		t.Errorf("made twice: %+v", put.Entry)
	}
	// The isolate knows the entry it made: a hit on it decodes nothing.
	if e, ok := w.h.decoded.knownEntry(put.Entry.Header.Get(routeEntryHeader)); !ok || e.c.Host != "shop.kamui.test" || e.rec.App != "shop" {
		t.Errorf("the entry made is not remembered as decoded: %+v, %v", e, ok)
	}

	w.clock.Advance(3 * time.Second)
	if late.Make() {
		t.Errorf("an entry made when its lifetime had run out is stored: %+v", late.Entry)
	}
}
