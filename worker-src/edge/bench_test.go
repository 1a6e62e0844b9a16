package edge

import (
	"strconv"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// The Serve benchmarks measure the core's CPU per request on each path. Run them in Wasm
// too (GOOS=js GOARCH=wasm go test -bench . -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec")
// to see what the Worker's isolate pays.

func benchServe(b *testing.B, host, path string, prime func(w *world)) {
	w := newWorld(b)
	w.log = &fakeLog{}
	w.h.Log = discardLogger{}
	if prime != nil {
		prime(w)
	}
	req := get(host, path)
	b.ReportAllocs()
	for b.Loop() {
		ex := w.h.Serve(req)
		if ex.Plan.Forward != nil {
			ex.UpstreamResponse(200, Header{{"Content-Type", "text/html"}})
		}
	}
}

func BenchmarkServeMemoDynamic(b *testing.B) {
	benchServe(b, "shop.kamui.test", "/cart", func(w *world) { w.h.Serve(get("shop.kamui.test", "/")) })
}

func BenchmarkServeKVCustomDomain(b *testing.B) {
	// No memo: every iteration resolves through KV (route entries are not stored here).
	benchServe(b, "www.shop.example", "/cart", func(w *world) { w.h.Config.TTLs.Memo = 0 })
}

func BenchmarkServeRouteCacheHit(b *testing.B) {
	benchServe(b, "www.shop.example", "/cart", func(w *world) {
		w.serve(w.h, get("www.shop.example", "/"))
		w.h.Config.TTLs.Memo = 0
		w.h.memo = nil
	})
}

// BenchmarkContentHit is the adapter's two passes of a content-cache hit for a host the memo
// holds as static: a Decide that names the content lookup, then one with the lookup's entry.
func BenchmarkContentHit(b *testing.B) {
	w := newWorld(b)
	w.log = &fakeLog{}
	w.h.Log = discardLogger{}
	w.serve(w.h, get("docs.kamui.test", "/"))
	hit := &Lookup{Found: true, Entry: Entry{Status: 200, Header: Header{{"Content-Type", "text/html"}, {"Content-Length", "9"},
		{"ETag", `"e-1"`}, {"Cache-Control", "max-age=60"}, {route.CacheMarkerHeader, testMarker}}, Body: TextBody("docs home")}}
	b.ReportAllocs()
	for b.Loop() {
		ex := w.h.Begin(get("docs.kamui.test", "/guide/start.html"))
		if ex.Decide() {
			b.Fatal("decided without the content lookup")
		}
		ex.req.Content = hit
		if !ex.Decide() || ex.Plan.Status != 200 {
			b.Fatalf("content hit: decided %v status %d", ex.Plan.Status != 0, ex.Plan.Status)
		}
	}
}

// BenchmarkStaticRouteCacheHit is a static GET whose host's memo entry has expired, as the
// adapter drives it: a Decide naming both lookups, one with the route-cache entry alone (it
// arrived first), one with the content miss too, then Run (the R2 read).
func BenchmarkStaticRouteCacheHit(b *testing.B) {
	w := newWorld(b)
	w.log = &fakeLog{}
	w.h.Log = discardLogger{}
	w.serve(w.h, get("docs.kamui.test", "/"))
	entry, found, err := w.cache.Match(route.RouteCacheKey(testPlatform, "docs.kamui.test"))
	if !found || err != nil {
		b.Fatal("no route-cache entry")
	}
	routeHit := &Lookup{Found: true, Entry: entry}
	w.h.Config.TTLs.Memo = 0
	w.h.memo = nil
	b.ReportAllocs()
	for b.Loop() {
		ex := w.h.Begin(get("docs.kamui.test", "/guide/start.html"))
		if ex.Decide() {
			b.Fatal("decided without lookups")
		}
		ex.req.Route = routeHit
		if ex.Decide() {
			b.Fatal("decided without the content lookup")
		}
		missThenRead(b, ex)
	}
}

// missThenRead drives a static GET whose Decide waits for the content lookup: the miss comes
// back, a Decide names the R2 read, and Run makes it.
func missThenRead(b *testing.B, ex *Exchange) {
	ex.req.Content = &Lookup{}
	if ex.Decide() {
		b.Fatal("decided without the R2 read")
	}
	ex.Run()
	if ex.Plan.Status != 200 {
		b.Fatalf("status %d: %s", ex.Plan.Status, ex.line.Error)
	}
}

// BenchmarkColdSiteGET is a content-addressed site's GET in an isolate that knows nothing yet,
// as the adapter drives it: a Decide naming both lookups, one with both misses, then Run (the
// record from KV, the manifest, the object). It is the slowest common path of make bench-edge,
// where its Go work took about 1.5 ms a request (each call into Go timed from the shim),
// some 35 times what it costs here and 6 times its cost in a loop in Node's Wasm: compare
// its allocations and work, not its nanoseconds, with what workerd pays.
func BenchmarkColdSiteGET(b *testing.B) {
	w := newWorld(b)
	w.log = &fakeLog{}
	w.h.Log = discardLogger{}
	b.ReportAllocs()
	for b.Loop() {
		w.h.memo, w.h.flights = nil, nil
		w.h.sites = siteMemo{}
		w.h.decoded = decoded{}
		ex := w.h.Begin(get("cas.kamui.test", "/guide/start.html"))
		if ex.Decide() {
			b.Fatal("decided without lookups")
		}
		ex.req.Route, ex.req.Content = &Lookup{}, &Lookup{}
		if ex.Decide() {
			b.Fatal("decided without KV")
		}
		ex.Run()
		if ex.Plan.Status != 200 {
			b.Fatalf("status %d: %s", ex.Plan.Status, ex.line.Error)
		}
	}
}

// BenchmarkSiteMemoPutFull is what remembering a new site's manifest costs an isolate whose
// manifest memo is full (it serves more sites than the memo holds): the least recently used
// entry goes out first.
func BenchmarkSiteMemoPutFull(b *testing.B) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var m siteMemo
	site := siteManifest{files: siteFiles{"index.html": siteFile{}}}
	keys := make([]string, 4*defaultMaxSiteManifests)
	for i := range keys {
		keys[i] = "sites/s" + strconv.Itoa(i) + "/manifests/v1.json"
	}
	for _, k := range keys[:defaultMaxSiteManifests] {
		m.put(k, "", site, "", exp)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.put(keys[i%len(keys)], "", site, "", exp)
		i++
	}
}

// BenchmarkRouteEntryMake is what making one route-cache entry costs (CachePut.Make): the
// adapter makes every entry a request planned once its response has left, in the isolate that
// serves the next requests.
func BenchmarkRouteEntryMake(b *testing.B) {
	w := newWorld(b)
	ex := w.h.Serve(get("shop.kamui.test", "/"))
	if len(ex.Plan.CachePuts) != 1 {
		b.Fatalf("puts %+v, want the host's entry", ex.Plan.CachePuts)
	}
	planned := ex.Plan.CachePuts[0]
	b.ReportAllocs()
	for b.Loop() {
		put := planned
		if !put.Make() {
			b.Fatal("no entry made")
		}
	}
}

// BenchmarkStaticMemoContentMiss is a static GET of a site the isolate has in memory (its
// route in the memo, its manifest remembered) whose content lookup missed, as the adapter
// drives it: a Decide naming the content lookup, one with the miss, then Run (the R2 read). It
// is the commonest static path of make bench-edge.
func BenchmarkStaticMemoContentMiss(b *testing.B) {
	w := newWorld(b)
	w.log = &fakeLog{}
	w.h.Log = discardLogger{}
	w.serve(w.h, get("cas.kamui.test", "/guide/start.html"))
	w.h.Config.TTLs.Memo = time.Hour
	w.serve(w.h, get("cas.kamui.test", "/guide/start.html"))
	b.ReportAllocs()
	for b.Loop() {
		ex := w.h.Begin(get("cas.kamui.test", "/guide/start.html"))
		if ex.Decide() {
			b.Fatal("decided without the content lookup")
		}
		missThenRead(b, ex)
	}
}
