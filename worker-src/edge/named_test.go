package edge

import (
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// warmFilter has h hold the name filter (here: none published, which admits every host), as an
// isolate does after its first request; until then a Decide leaves every per-host read to Run.
func (w *world) warmFilter(t *testing.T, h *Handler) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range h.filters {
		h.filters[i] = heldFilter{exp: w.clock.Now().Add(time.Hour)}
	}
}

// decideUntilRead drives req as the adapter does until a Decide names a binding read, and
// returns the exchange with that read not yet made.
func (w *world) decideUntilRead(t *testing.T, h *Handler, req *Request) *Exchange {
	t.Helper()
	ex := h.Begin(req)
	for !ex.Decide() {
		if ex.Read().Kind != ReadNone {
			return ex
		}
		content, rk := ex.Lookups()
		switch {
		case content != "":
			req.Content = w.lookup(content)
		case rk != "":
			ex.RouteBack(w.lookup(rk))
		default:
			t.Fatalf("%s: stopped with nothing named before a binding read", req.URL)
		}
	}
	t.Fatalf("%s: decided without a binding read", req.URL)
	return nil
}

// The cold path of a platform host needs no Run once the isolate holds the filter: the record,
// the manifest and the object are each named, made by the adapter and decided on again. The
// answer, the log line and the route-cache entry are those Run would give.
func TestDecideNamesTheColdReads(t *testing.T) {
	w := newWorld(t)
	w.warmFilter(t, w.h)

	ex, steps := w.adapt(w.h, get("cas.kamui.test", "/guide/start.html"))
	if want := "decide,content,decide,route,decide,read ROUTES,decide,read STATIC,decide,object,decide"; steps != want {
		t.Fatalf("cold site GET: steps %q, want %q", steps, want)
	}
	if ex.Plan.Status != 200 || bodyText(t, ex.Plan.Body) != "start" || ex.Plan.Store == nil {
		t.Fatalf("cold site GET: %d %q store %v", ex.Plan.Status, bodyText(t, ex.Plan.Body), ex.Plan.Store)
	}
	l := ex.line
	if l.RouteSource != "kv" || l.RouteCache != "miss" || l.KVReads != 1 || l.ManifestReads != 1 || l.R2Reads != 1 || l.IORounds != 4 {
		t.Errorf("cold site GET: log %+v", l)
	}
	if len(ex.Plan.CachePuts) != 1 || ex.Plan.CachePuts[0].Key != route.RouteCacheKey(testPlatform, "cas.kamui.test") {
		t.Fatalf("the route-cache entry made in the pass that read the record was lost: puts %+v", ex.Plan.CachePuts)
	}
	// The entry it stored answers another isolate, as Run's would.
	other := w.handler(t)
	w.warmFilter(t, other)
	ex, steps = w.adapt(other, get("cas.kamui.test", "/"))
	if !strings.HasPrefix(steps, "decide,content,decide,route,decide,read STATIC") || ex.line.RouteSource != "route-cache" {
		t.Errorf("another isolate: steps %q source %q", steps, ex.line.RouteSource)
	}

	// A dynamic app and an unknown name: the record's read is the only one.
	for host, want := range map[string]string{"shop.kamui.test": "forward", "ghost.kamui.test": "404"} {
		h := w.handler(t)
		w.warmFilter(t, h)
		reads := w.kvReads()
		ex, steps := w.adapt(h, get(host, "/p"))
		if steps != "decide,content,decide,route,decide,read ROUTES,decide" {
			t.Errorf("%s: steps %q", host, steps)
		}
		if (want == "forward") != (ex.Plan.Forward != nil) || (want == "404" && ex.Plan.Status != 404) || w.kvReads() != reads+1 {
			t.Errorf("%s: plan %+v, %d KV reads", host, ex.Plan, w.kvReads()-reads)
		}
	}
	// Without the filter held (an isolate's first request), the record's read is Run's: Run
	// reads the filter first.
	if _, steps := w.adapt(w.handler(t), get("docs.kamui.test", "/")); steps != "decide,content,decide,route,decide,run" {
		t.Errorf("without the filter: steps %q", steps)
	}
}

// A custom host's reads are named as a platform host's are: the mapping, then its app's
// record, whose route-cache entries (the host's and the app's) go with the answer; and so is
// the lookup of the app's route-cache entry, beside the mapping or after it.
func TestDecideNamesACustomHostsReads(t *testing.T) {
	w := newWorld(t)
	h := w.handler(t)
	w.warmFilter(t, h)
	ex, steps := w.adapt(h, get("www.shop.example", "/"))
	if want := "decide,content,decide,route,decide,read DOMAINS,decide,read ROUTES,decide"; steps != want {
		t.Fatalf("custom host: steps %q, want %q", steps, want)
	}
	l := ex.line
	if ex.Plan.Forward == nil || l.RouteSource != "kv" || l.KVReads != 2 || l.IORounds != 4 || len(ex.Plan.CachePuts) != 2 {
		t.Errorf("custom host: forward %v, log %+v, %d route-cache puts (want the host's and the app's)",
			ex.Plan.Forward != nil, l, len(ex.Plan.CachePuts))
	}

	// A host this isolate resolved before, its memo entry expired and its route-cache entry
	// gone (the app's too): the app's entry is looked up beside the mapping's read, in the host
	// lookup's place, and missing, ROUTES is read. No Run: the site's layout by prefix is Run's,
	// so the dynamic app shows the reads alone.
	h = w.handler(t)
	w.warmFilter(t, h)
	w.clearCache()
	if _, steps := w.adapt(h, get("www.shop.example", "/")); !strings.Contains(steps, "read DOMAINS") {
		t.Fatalf("first request: steps %q", steps)
	}
	w.clearCache()
	w.clock.Advance(h.Config.TTLs.Memo + time.Second)
	w.warmFilter(t, h)
	req := get("www.shop.example", "/")
	ex = w.decideUntilRead(t, h, req)
	appKey := route.RouteCacheKey(testPlatform, "shop.kamui.test")
	if _, rk := ex.Lookups(); ex.Read().Key != "www.shop.example" || rk != appKey {
		t.Fatalf("a host resolved before: named read %+v and route lookup %q, want the mapping's beside the app's entry", ex.Read(), rk)
	}
	steps = w.resume(ex, req)
	if want := ",route,decide,read DOMAINS,decide,read ROUTES,decide"; steps != want || ex.Plan.Forward == nil {
		t.Errorf("a host resolved before: steps %q, want %q", steps, want)
	}
	// Rounds: the lookups, the mapping beside the app's entry, ROUTES, the forward.
	if l := ex.line; l.RouteCache != "miss" || l.KVReads != 2 || l.IORounds != 4 {
		t.Errorf("a host resolved before: log %+v", l)
	}

	// A new custom host of an app whose entry this isolate stored moments ago (its memo entry
	// expired): the mapping is named, then the app's entry instead of ROUTES.
	h = w.handler(t)
	w.warmFilter(t, h)
	w.clearCache()
	w.adapt(h, get("shop.kamui.test", "/"))
	w.clock.Advance(h.Config.TTLs.Memo + time.Second)
	w.warmFilter(t, h)
	routes := w.routes.count()
	ex, steps = w.adapt(h, get("www.shop.example", "/x"))
	if steps != "decide,content,decide,route,decide,read DOMAINS,decide,route,decide" || ex.line.RouteSource != "kv" ||
		w.routes.count() != routes || ex.line.IORounds != 4 {
		t.Errorf("the app's entry: steps %q source %q rounds %d, ROUTES read %d times", steps, ex.line.RouteSource,
			ex.line.IORounds, w.routes.count()-routes)
	}
}

// clearCache empties the Cache API, as when every entry has been evicted.
func (w *world) clearCache() {
	w.cache.mu.Lock()
	w.cache.entries = nil
	w.cache.mu.Unlock()
}

// While a Decide's read is out, its exchange leads the host's flight: a concurrent request for
// the same host is left to Run, which waits for it and shares its answer; KV is read once.
func TestNamedReadKeepsTheSingleFlight(t *testing.T) {
	w := newWorld(t)
	w.warmFilter(t, w.h)
	leader := w.decideUntilRead(t, w.h, get("cas.kamui.test", "/"))

	follower := get("cas.kamui.test", "/guide/start.html")
	follower.Content, follower.Route = &Lookup{}, &Lookup{} // both missed
	fx := w.h.Begin(follower)
	if fx.Decide() || fx.Read().Kind != ReadNone {
		t.Fatalf("a concurrent Decide named read %+v while the leader's is out", fx.Read())
	}
	// The follower goes on once the leader's pass is over, as in the Worker, where one runs
	// at a time: natively it could race the leader to the manifest.
	waiting, passed := make(chan struct{}, 2), make(chan struct{})
	w.h.WaitShared = func(done <-chan struct{}) {
		waiting <- struct{}{}
		<-done
		<-passed
	}
	done := make(chan struct{})
	go func() { fx.Run(); close(done) }()
	select {
	case <-done:
		t.Fatal("the follower did not wait for the leader's read")
	case <-waiting:
	}

	leader.req.Read = w.read(leader.Read())
	if leader.Decide() || leader.Read().Kind != ReadText {
		t.Fatal("the leader did not go on to the manifest")
	}
	close(passed)
	// The follower, given the record, waits for the manifest the leader now reads.
	leader.req.Read = w.read(leader.Read())
	if leader.Decide() || leader.ObjectKey() == "" {
		t.Fatal("the leader did not go on to its object")
	}
	<-done
	if fx.line.RouteSource != "shared" || fx.Plan.Status != 200 || bodyText(t, fx.Plan.Body) != "start" {
		t.Errorf("follower: source %q status %d", fx.line.RouteSource, fx.Plan.Status)
	}
	if n, _ := w.objects.counts(); w.routes.count() != 1 || n != 1 {
		t.Errorf("ROUTES read %d times, objects %d; want the leader's alone and the follower's object", w.routes.count(), n)
	}
}

// The manifest's flight works the same way: a request that needs a manifest another one has
// named waits for it in Run instead of reading it again.
func TestNamedManifestReadKeepsTheSingleFlight(t *testing.T) {
	w := newWorld(t)
	w.warmFilter(t, w.h)
	w.adapt(w.h, get("cas.kamui.test", "/")) // the record in the memo, the manifest too
	w.h.mu.Lock()
	w.h.sites = siteMemo{}
	w.h.mu.Unlock()
	_, manifests := w.objects.counts()

	leader := w.decideUntilRead(t, w.h, get("cas.kamui.test", "/data.txt"))
	if r := leader.Read(); r.Kind != ReadText || r.Binding != BindingStatic || r.Param != route.MaxSiteManifestBytes {
		t.Fatalf("named %+v, want the manifest", r)
	}
	follower := get("cas.kamui.test", "/guide/start.html")
	follower.Content = &Lookup{}
	fx := w.h.Begin(follower)
	if fx.Decide() || fx.Read().Kind != ReadNone {
		t.Fatalf("a concurrent Decide named read %+v while the leader's is out", fx.Read())
	}
	done := make(chan struct{})
	go func() { fx.Run(); close(done) }()
	leader.req.Read = w.read(leader.Read())
	if leader.Decide() || leader.ObjectKey() == "" {
		t.Fatal("the leader did not go on to its object")
	}
	<-done
	if _, m := w.objects.counts(); m != manifests+1 || fx.Plan.Status != 200 || bodyText(t, fx.Plan.Body) != "start" {
		t.Errorf("manifest reads %d, want 1; follower status %d", m-manifests, fx.Plan.Status)
	}
}

// A request that never comes back with its read (its client went away) holds the flight only
// until flightTimeout; then another request resolves on its own.
func TestAbandonedNamedReadFreesTheHost(t *testing.T) {
	w := newWorld(t)
	w.warmFilter(t, w.h)
	w.decideUntilRead(t, w.h, get("cas.kamui.test", "/"))
	w.clock.Advance(flightTimeout)
	ex, steps := w.adapt(w.h, get("cas.kamui.test", "/"))
	if !strings.Contains(steps, "read ROUTES") || strings.Contains(steps, "run") || ex.Plan.Status != 200 {
		t.Errorf("after the abandoned read: steps %q status %d", steps, ex.Plan.Status)
	}
}

// A read a Decide named and the adapter left to Run is made by Run, and its round is counted
// once; a read's outcome for nothing named is ignored.
func TestNamedReadLeftToRun(t *testing.T) {
	w := newWorld(t)
	w.warmFilter(t, w.h)
	ex := w.decideUntilRead(t, w.h, get("shop.kamui.test", "/n"))
	ex.Run()
	if ex.Plan.Forward == nil || ex.line.KVReads != 1 || ex.line.IORounds != 3 {
		t.Errorf("Run after a named read: forward %v kv_reads %d io_rounds %d (content+route, KV, upstream)",
			ex.Plan.Forward != nil, ex.line.KVReads, ex.line.IORounds)
	}

	req := get("docs.kamui.test", "/")
	req.Read = &TextRead{Found: true, Text: "not asked for"}
	ex = w.h.Begin(req)
	ex.Decide()
	if len(ex.done) != 0 {
		t.Errorf("kept a read nothing named: %+v", ex.done)
	}
}

// The record's read time is when its read was named, not when it came back: the content
// entry's lifetime, derived from it, must not outlast the freshness budget by the wait.
func TestNamedReadTimeIsWhenItWasAsked(t *testing.T) {
	w := newWorld(t)
	w.warmFilter(t, w.h)
	stored := func(wait time.Duration) string {
		h := w.handler(t)
		w.warmFilter(t, h)
		ex := w.decideUntilRead(t, h, get("cas.kamui.test", "/data.txt"))
		ex.req.Read = w.read(ex.Read())
		w.clock.Advance(wait) // the read takes that long to come back
		for !ex.Decide() {
			if n := ex.Read(); n.Kind != ReadNone {
				ex.req.Read = w.read(n)
			} else {
				r := new(ObjectRead)
				r.Object, r.Found, r.Err = w.objects.Get(ex.ObjectKey(), true)
				ex.req.Object = r
			}
		}
		if ex.Plan.Store == nil {
			t.Fatalf("waited %v: nothing stored", wait)
		}
		return ex.Plan.Store.Header.Get("Cache-Control")
	}
	if now, late := stored(0), stored(10*time.Second); now != "public, max-age=72" || late != "public, max-age=62" {
		t.Errorf("content Cache-Control %q without a wait for the record, %q after 10 s; want max-age 72 and 62", now, late)
	}
}
