package edge

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// publishFilters writes both namespaces' name filters from their keys, as the provider's
// rebuild does.
func (w *world) publishFilters() {
	for _, kv := range []*fakeKV{w.routes, w.domains} {
		kv.mu.Lock()
		var names []string
		for k := range kv.data {
			if k != route.FilterKey {
				names = append(names, k)
			}
		}
		kv.data[route.FilterKey] = string(route.BuildFilter(names))
		kv.mu.Unlock()
	}
}

func filterLinesOf(t *testing.T, w *world) []map[string]any {
	t.Helper()
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	var out []map[string]any
	for _, s := range w.log.filterLines {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestFilterRefusesUnknownHostsWithoutPerHostReads: a flood of distinct unknown labels (and
// custom hosts) costs the filter's one read per namespace and isolate, and no per-host read; the
// filter's read is counted in the line of the request that made it.
func TestFilterRefusesUnknownHostsWithoutPerHostReads(t *testing.T) {
	w := newWorld(t)
	w.publishFilters()
	for i, host := range []string{"r4nd0m1.kamui.test", "r4nd0m2.kamui.test", "r4nd0m3.kamui.test"} {
		ex, steps := w.adapt(w.h, get(host, "/"))
		assertFixed(t, ex, 404, host)
		l := logLineOf(t, w)
		wantReads := 0.0
		if i == 0 {
			wantReads = 1 // the isolate's first read of ROUTES' filter
		}
		if l["route_source"] != "filter" || l["outcome"] != "unknown-host" || l["kv_reads"] != wantReads {
			t.Errorf("%s: log %v", host, l)
		}
		if i > 0 && steps != "decide" {
			// With the filter held, a Decide refuses it outright: no cache lookup either.
			t.Errorf("%s: steps %q, want decide", host, steps)
		}
	}
	assertFixed(t, w.serve(w.h, get("www.nobody.example", "/")), 404)
	if w.kvReads() != 0 {
		t.Errorf("unknown hosts made %d per-host KV reads (ROUTES %v, DOMAINS %v)", w.kvReads(), w.routes.reads, w.domains.reads)
	}
	if w.routes.filterCount() != 1 || w.domains.filterCount() != 1 {
		t.Errorf("filter reads: ROUTES %d, DOMAINS %d; want one each", w.routes.filterCount(), w.domains.filterCount())
	}
	if w.routes.filterReads[0] != w.h.Config.TTLs.FilterKV {
		t.Errorf("filter cacheTtl %v, want FilterKV %v", w.routes.filterReads[0], w.h.Config.TTLs.FilterKV)
	}
	if lines := filterLinesOf(t, w); len(lines) != 0 {
		t.Errorf("an intact filter logged %v", lines)
	}
	// Known hosts still go through: the filter admits every key.
	if ex := w.serve(w.h, get("shop.kamui.test", "/")); ex.Plan.Forward == nil {
		t.Fatalf("known platform host: status %d", ex.Plan.Status)
	}
	if ex := w.serve(w.h, get("www.shop.example", "/")); ex.Plan.Forward == nil {
		t.Fatalf("known custom host: status %d", ex.Plan.Status)
	}
	if w.routes.filterCount() != 1 || w.domains.filterCount() != 1 {
		t.Errorf("the held filter was read again: ROUTES %d, DOMAINS %d", w.routes.filterCount(), w.domains.filterCount())
	}
}

// TestNoUsableFilterMeansNoFilter: a missing, stale-schema, corrupt or unreadable filter never
// refuses anything: the host is read from KV as without one, and the state is logged.
func TestNoUsableFilterMeansNoFilter(t *testing.T) {
	future := route.BuildFilter([]string{"shop"})
	future[4] = route.FilterSchemaVersion + 1
	corrupt := route.BuildFilter(nil) // the empty set would refuse everything, were it intact
	corrupt[len(corrupt)-1] ^= 1
	for _, tc := range []struct {
		state string
		set   func(*world)
	}{
		{"missing", func(*world) {}},
		{"stale-schema", func(w *world) { w.routes.data[route.FilterKey] = string(future) }},
		{"corrupt", func(w *world) { w.routes.data[route.FilterKey] = string(corrupt) }},
		{"corrupt", func(w *world) { w.routes.data[route.FilterKey] = "not a filter" }},
		{"unreadable", func(w *world) { w.routes.filterErr = errBoom }},
	} {
		w := newWorld(t)
		tc.set(w)
		if ex := w.serve(w.h, get("shop.kamui.test", "/")); ex.Plan.Forward == nil {
			t.Fatalf("%s: known host refused (status %d)", tc.state, ex.Plan.Status)
		}
		assertFixed(t, w.serve(w.h, get("nobody.kamui.test", "/")), 404)
		if got := slices.Clone(w.routes.reads); !slices.Equal(got, []string{"shop", "nobody"}) {
			t.Errorf("%s: ROUTES reads %v: without a filter every host is read", tc.state, got)
		}
		lines := filterLinesOf(t, w)
		if len(lines) != 1 || lines[0]["state"] != tc.state || lines[0]["namespace"] != BindingRoutes {
			t.Errorf("%s: filter lines %v", tc.state, lines)
		}
		// "No filter" is held too: the next request does not read the filter again...
		w.serve(w.h, get("nobody2.kamui.test", "/"))
		if w.routes.filterCount() != 1 {
			t.Errorf("%s: filter read %d times", tc.state, w.routes.filterCount())
		}
		// ...for the filter's hold, or only the memo's lifetime after a failed read.
		hold := w.h.Config.TTLs.FilterHold
		if tc.state == "unreadable" {
			hold = w.h.Config.TTLs.Memo
		}
		w.clock.Advance(hold)
		w.serve(w.h, get("nobody3.kamui.test", "/"))
		if w.routes.filterCount() != 2 {
			t.Errorf("%s: after %v the filter was read %d times, want 2", tc.state, hold, w.routes.filterCount())
		}
	}
}

// TestFilterNewAppAdmittedWithinTheBudget: a new app is written, the provider rebuilds the filter;
// an isolate holding the old filter refuses the app for at most FilterHold after its read, and
// the KV copy it reads is at most FilterKV old (its cacheTtl), so the refusal ends within
// FilterKV + FilterHold ≤ the budget of the filter's write. Refusals are never cached, so nothing
// outlives the filter.
func TestFilterNewAppAdmittedWithinTheBudget(t *testing.T) {
	w := newWorld(t)
	w.publishFilters()
	assertFixed(t, w.serve(w.h, get("fresh.kamui.test", "/")), 404)

	w.clock.Advance(time.Second)
	w.routes.data["fresh"] = record(t, dynamicRecord("fresh"))
	w.publishFilters()
	ttl := w.h.Config.TTLs
	if ttl.FilterKV+ttl.FilterHold > ttl.Budget {
		t.Fatalf("the filter's chain %v exceeds the budget %v", ttl.FilterKV+ttl.FilterHold, ttl.Budget)
	}
	// Still the old filter until its hold ends (the read was a second before the write).
	w.clock.Advance(ttl.FilterHold - 2*time.Second)
	assertFixed(t, w.serve(w.h, get("fresh.kamui.test", "/")), 404)
	if len(w.routes.reads) != 0 || len(w.cache.entries) != 0 {
		t.Fatalf("a refusal read %v or cached %d entries", w.routes.reads, len(w.cache.entries))
	}
	w.clock.Advance(time.Second)
	if ex := w.serve(w.h, get("fresh.kamui.test", "/")); ex.Plan.Forward == nil {
		t.Fatalf("the new app is still refused after the filter's hold (status %d)", ex.Plan.Status)
	}
	// A fresh isolate admits it at once.
	if ex := w.serve(w.handler(t), get("fresh.kamui.test", "/")); ex.Plan.Forward == nil {
		t.Fatalf("a fresh isolate refused the new app (status %d)", ex.Plan.Status)
	}
}

// TestProbeNeedsTheFilter: the probe answers "match" only when the filter admits the host too,
// whatever the memo, the route cache and KV say: verify_propagation cannot pass while visitors
// are refused.
func TestProbeNeedsTheFilter(t *testing.T) {
	w := newWorld(t)
	_, shop, _ := route.EncodeRecord(dynamicRecord("shop"))
	_, www, _ := route.EncodeDomainMapping(route.DomainMapping{App: "shop", Status: route.StatusActive})
	// The memo and the route cache know both hosts (no filter yet: every host admitted).
	w.serve(w.h, get("shop.kamui.test", "/"))
	w.serve(w.h, get("www.shop.example", "/"))
	if got := w.serve(w.h, w.probe("shop.kamui.test", shop.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchRecord {
		t.Fatalf("without a filter: %q", got)
	}

	// A filter without them (a rebuild from a listing that lagged) reaches a fresh isolate.
	w.routes.data[route.FilterKey] = string(route.BuildFilter([]string{"docs"}))
	w.domains.data[route.FilterKey] = string(route.BuildFilter([]string{"www.docs.example"}))
	h := w.handler(t)
	w.serve(h, get("shop.kamui.test", "/")) // a visitor: refused
	if l := logLineOf(t, w); l["status"] != 404.0 || l["route_source"] != "filter" {
		t.Fatalf("visitor: %v", l)
	}
	for host, rev := range map[string]string{"shop.kamui.test": shop.Rev, "www.shop.example": www.Rev} {
		ex := w.serve(h, w.probe(host, rev))
		if got := ex.Plan.Header.Get(route.RevMatchHeader); ex.Plan.Status != 204 || got != route.RevMatchNone {
			t.Errorf("%s: the filter refuses it, the probe answered %d %q", host, ex.Plan.Status, got)
		}
	}
	// Even with the host in that isolate's memo (a request admitted before the filter was read
	// is the only way in), the probe asks the filter.
	h2 := w.handler(t)
	h2.mu.Lock()
	h2.filters[filterRoutes] = heldFilter{exp: w.clock.Now().Add(time.Minute)} // held: no filter
	h2.mu.Unlock()
	w.serve(h2, get("shop.kamui.test", "/"))
	h2.mu.Lock()
	h2.filters[filterRoutes] = heldFilter{}
	h2.mu.Unlock()
	if got := w.serve(h2, w.probe("shop.kamui.test", shop.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchNone {
		t.Errorf("memoized host the filter refuses: probe %q", got)
	}

	// Once the filter admits them, the probe matches.
	w.publishFilters()
	w.clock.Advance(w.h.Config.TTLs.FilterHold)
	if got := w.serve(h, w.probe("shop.kamui.test", shop.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchRecord {
		t.Errorf("admitted: probe %q", got)
	}
	if got := w.serve(h, w.probe("www.shop.example", www.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMapping {
		t.Errorf("admitted custom host: probe %q", got)
	}
}
