package edge

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// adapt drives a request the way the wasm adapter does: Decide, then each cache lookup it
// names, one at a time (content first, as when that one comes back first), deciding again
// after each, then the static object it names, and Run only when nothing is left to look up
// or read. steps records the way taken; the route-cache entries of the plan are stored
// afterwards, as the adapter does.
func (w *world) adapt(h *Handler, req *Request) (ex *Exchange, steps string) {
	ex = h.Begin(req)
	if ex.Decide() {
		w.storePuts(ex)
		return ex, "decide"
	}
	return ex, "decide" + w.resume(ex, req)
}

// resume goes on as adapt does with ex, whose last Decide returned false, and returns the
// steps it took from there.
func (w *world) resume(ex *Exchange, req *Request) (steps string) {
	// The read ahead is made as soon as it is named, as worker.mjs makes it, and handed back
	// when nothing else named comes first.
	var ahead *TextRead
	aheadBack := false
	for {
		if n := ex.ReadAhead(); n.Kind != ReadNone && ahead == nil {
			ahead = w.read(n)
		}
		content, rk := ex.Lookups()
		switch object := ex.ObjectKey(); {
		case content != "":
			req.Content = w.lookup(content)
			steps += ",content,decide"
		case rk != "":
			ex.RouteBack(w.lookup(rk))
			steps += ",route,decide"
		case object != "":
			r := new(ObjectRead)
			r.Object, r.Found, r.Err = w.objects.Get(object, true)
			req.Object = r
			steps += ",object,decide"
		case ex.Read().Kind != ReadNone:
			n := ex.Read()
			req.Read = w.read(n)
			steps += ",read " + n.Binding + ",decide"
		case ahead != nil && !aheadBack:
			aheadBack = true
			req.Ahead = ahead
			steps += ",ahead,decide"
		default:
			steps += ",run"
			ex.Run()
			w.storePuts(ex)
			return steps
		}
		if ex.Decide() {
			w.storePuts(ex)
			return steps
		}
	}
}

// read makes a named read as worker.mjs does, from the binding it names.
func (w *world) read(n NamedRead) *TextRead {
	r := new(TextRead)
	switch {
	case n.Kind == ReadKV && n.Binding == BindingRoutes:
		v, found, err := w.routes.Get(n.Key, time.Duration(n.Param)*time.Second)
		r.Text, r.Found, r.Err = string(v), found, err
	case n.Kind == ReadKV && n.Binding == BindingDomains:
		v, found, err := w.domains.Get(n.Key, time.Duration(n.Param)*time.Second)
		r.Text, r.Found, r.Err = string(v), found, err
	case n.Kind == ReadText && n.Binding == BindingStatic:
		r.Text, r.Found, r.Err = w.objects.Text(n.Key, n.Param)
	default:
		r.Err = errors.New("no such binding read: " + n.Binding)
	}
	return r
}

func (w *world) lookup(key string) *Lookup {
	l := new(Lookup)
	l.Entry, l.Found, l.Err = w.cache.Match(key)
	return l
}

func (w *world) matches() int {
	w.cache.mu.Lock()
	defer w.cache.mu.Unlock()
	return w.cache.matches
}

func TestDecideAnswersWarmRequestsWithoutRun(t *testing.T) {
	w := newWorld(t)
	step := func(h *Handler, req *Request, wantSteps string) *Exchange {
		t.Helper()
		reads, matches := w.kvReads(), w.matches()
		ex, steps := w.adapt(h, req)
		if steps != wantSteps {
			t.Fatalf("%s %s: steps %q, want %q", req.Method, req.URL, steps, wantSteps)
		}
		lookups := strings.Count(steps, "content") + strings.Count(steps, "route")
		if got := w.matches() - matches; got != lookups {
			t.Errorf("%s %s: %d Cache API lookups, want only the adapter's %d", req.Method, req.URL, got, lookups)
		}
		named := strings.Count(steps, "read ROUTES") + strings.Count(steps, "read DOMAINS")
		if !strings.Contains(steps, "run") && w.kvReads() != reads+named {
			t.Errorf("%s %s: a decision without Run read KV %d times, want only the adapter's %d", req.Method, req.URL, w.kvReads()-reads, named)
		}
		return ex
	}

	// Cold: both lookups miss, KV is I/O.
	ex := step(w.h, get("shop.kamui.test", "/a"), "decide,content,decide,route,decide,run")
	if ex.Plan.Forward == nil || ex.line.RouteSource != "kv" || w.kvReads() != 1 {
		t.Fatalf("cold: source %q reads %d", ex.line.RouteSource, w.kvReads())
	}
	// Warm in this isolate: the memo answers at once, with no lookup at all.
	ex = step(w.h, get("shop.kamui.test", "/b"), "decide")
	if ex.Plan.Forward == nil || ex.line.RouteSource != "memo" || ex.line.ContentCache != "skip-dynamic" {
		t.Errorf("memo: source %q content %q", ex.line.RouteSource, ex.line.ContentCache)
	}
	// Another isolate: the route-cache entry the first one stored answers.
	other := w.handler(t)
	ex = step(other, get("shop.kamui.test", "/c"), "decide,content,decide,route,decide")
	if ex.Plan.Forward == nil || ex.line.RouteSource != "route-cache" || ex.line.RouteCache != "hit" {
		t.Errorf("route cache: source %q route %q", ex.line.RouteSource, ex.line.RouteCache)
	}
	// Not GET/HEAD: no content lookup, only the route-cache one.
	post := get("shop.kamui.test", "/d")
	post.Method = "POST"
	step(w.handler(t), post, "decide,route,decide")

	// Static: the first request stores the page; another isolate then answers from the
	// content cache without reaching R2 or KV, and without waiting for the route entry.
	// The isolate holds the name filter now: the record is read for a Decide too, and only
	// the static origin (a layout by prefix) is left for Run.
	ex = step(w.h, get("docs.kamui.test", "/"), "decide,content,decide,route,decide,read ROUTES,decide,run")
	if ex.Plan.Store == nil {
		t.Fatal("static: nothing to store")
	}
	w.cache.store(ex.Plan.Store.Key, Entry{Status: 200, Header: ex.Plan.Store.Header, Body: TextBody("docs home")})
	objects := len(w.objects.reads)
	ex = step(w.handler(t), get("docs.kamui.test", "/"), "decide,content,decide")
	if ex.line.ContentCache != "hit" || bodyText(t, ex.Plan.Body) != "docs home" || ex.Plan.Header.Has(route.CacheMarkerHeader) {
		t.Errorf("content hit: %q, header %v", ex.line.ContentCache, ex.Plan.Header)
	}
	// A static page not in the content cache: the route-cache entry resolves it and only
	// the static origin is left for Run; the log says where the route came from.
	ex = step(w.handler(t), get("docs.kamui.test", "/guide/start.html"), "decide,content,decide,route,decide,run")
	if ex.Plan.Status != 200 || ex.line.RouteSource != "route-cache" || ex.line.RouteCache != "hit" ||
		len(w.objects.reads) != objects+1 {
		t.Errorf("static via route cache: status %d source %q route %q", ex.Plan.Status, ex.line.RouteSource, ex.line.RouteCache)
	}
	// A negative-cached host in this isolate: the content lookup, then a fixed 404.
	step(w.h, get("nope.kamui.test", "/"), "decide,content,decide,route,decide,read ROUTES,decide")
	ex = step(w.h, get("nope.kamui.test", "/"), "decide,content,decide")
	assertFixed(t, ex, 404)
}

// The adapter's way through Decide and Run must give exactly what Serve gives: the same
// plans and the same log lines, request after request.
func TestDecideMatchesServe(t *testing.T) {
	reqs := []*Request{
		get("shop.kamui.test", "/a?x=1"), get("shop.kamui.test", "/b"), get("www.shop.example", "/"),
		get("www.shop.example", "/x"), get("docs.kamui.test", "/"), get("docs.kamui.test", "/guide/start.html"),
		get("www.docs.example", "/missing"), get("spa.kamui.test", "/deep/link"), get("ghost.kamui.test", "/"),
		get("ghost.kamui.test", "/again"), get("nx.unknown.example", "/<script>"), get("bad_host!", "/"),
		get("prov.kamui.test", "/"), get("broken.kamui.test", "/"), get("future.kamui.test", "/"),
		get("www.off.example", "/"), get("www.kamui.test", "/"),
		get("cas.kamui.test", "/"), get("cas.kamui.test", "/missing"), get("casspa.kamui.test", "/deep/link"),
		get("casspa.kamui.test", "/missing.js"), request("cas.kamui.test", "HEAD", "/data.txt"),
		request("cas.kamui.test", "GET", "/data.txt", Field{"If-None-Match", route.SiteETag(objectOf(dataBody))}),
	}
	head := get("docs.kamui.test", "/")
	head.Method = "HEAD"
	post := get("www.shop.example", "/form")
	post.Method = "POST"
	put := get("docs.kamui.test", "/")
	put.Method = "PUT"
	reqs = append(reqs, head, post, put)

	served, adapted := newWorld(t), newWorld(t)
	for round := 0; round < 2; round++ {
		for _, r := range reqs {
			a, b := *r, *r
			exS := served.serve(served.h, &a)
			exA, _ := adapted.adapt(adapted.h, &b)
			if exS.Plan.Status != exA.Plan.Status || (exS.Plan.Forward == nil) != (exA.Plan.Forward == nil) {
				t.Fatalf("%s %s: Serve status %d, adapter %d", r.Method, r.URL, exS.Plan.Status, exA.Plan.Status)
			}
			if f := exS.Plan.Forward; f != nil {
				exS.UpstreamResponse(200, Header{{"Content-Type", "text/plain"}})
				exA.UpstreamResponse(200, Header{{"Content-Type", "text/plain"}})
				if g := exA.Plan.Forward; g.URL != f.URL || !equalHeader(g.Header, f.Header) {
					t.Errorf("%s %s: forward differs:\n%+v\n%+v", r.Method, r.URL, f, g)
				}
			} else if !equalHeader(exS.Plan.Header, exA.Plan.Header) || bodyText(t, exS.Plan.Body) != bodyText(t, exA.Plan.Body) {
				t.Errorf("%s %s: response differs", r.Method, r.URL)
			}
			if s, a := served.log.last(t), adapted.log.last(t); s != a {
				t.Errorf("%s %s (round %d): log lines differ:\nServe:   %s\nadapter: %s", r.Method, r.URL, round, s, a)
			}
		}
	}
	if served.kvReads() != adapted.kvReads() {
		t.Errorf("KV reads: Serve %d, adapter %d", served.kvReads(), adapted.kvReads())
	}
}

func equalHeader(a, b Header) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecideLeavesConcurrentLookupToRun(t *testing.T) {
	w := newWorld(t)
	stall := make(chan struct{})
	w.routes.stall = stall
	leader := make(chan *Exchange)
	go func() { leader <- w.h.Serve(get("shop.kamui.test", "/")) }()
	for {
		w.h.mu.Lock()
		_, inFlight := w.h.flights["shop.kamui.test"]
		w.h.mu.Unlock()
		if inFlight {
			break
		}
	}
	req := get("shop.kamui.test", "/x")
	req.Method = "POST"
	req.Route = &Lookup{} // the route cache missed
	ex := w.h.Begin(req)
	if ex.Decide() {
		t.Fatal("decided while another request is reading KV for the same host")
	}
	if c, r := ex.Lookups(); c != "" || r != "" {
		t.Errorf("lookups %q %q: nothing is left to look up", c, r)
	}
	close(stall)
	<-leader
	ex.Run()
	if ex.Plan.Forward == nil || w.routes.count() != 1 {
		t.Errorf("after the leader: source %q, %d KV reads", ex.line.RouteSource, w.routes.count())
	}
}

func TestDecideBadConfig(t *testing.T) {
	w := newWorld(t)
	w.h.ConfigErr = &ConfigError{Binding: BindingRoutes, Problem: "missing"}
	ex, steps := w.adapt(w.h, get("shop.kamui.test", "/"))
	if steps != "decide" {
		t.Errorf("steps %q", steps)
	}
	assertFixed(t, ex, 500)
}

// While the content lookup is still on its way, a route-cache entry saying "dynamic" is
// enough to decide; one saying "static" is not.
func TestDecideDynamicRouteEntryNeedsNoContentLookup(t *testing.T) {
	w := newWorld(t)
	w.adapt(w.h, get("shop.kamui.test", "/"))
	w.adapt(w.h, get("docs.kamui.test", "/"))
	other := w.handler(t)

	req := get("shop.kamui.test", "/cart")
	ex := other.Begin(req)
	if ex.Decide() {
		t.Fatal("decided with no lookup at all")
	}
	_, rk := ex.Lookups()
	req.Route = w.lookup(rk)
	if !ex.Decide() || ex.Plan.Forward == nil {
		t.Fatalf("dynamic route entry: not decided (status %d)", ex.Plan.Status)
	}
	if ex.line.ContentCache != "skip-dynamic" || ex.line.RouteCache != "hit" || ex.line.RouteSource != "route-cache" {
		t.Errorf("log: content %q route %q source %q", ex.line.ContentCache, ex.line.RouteCache, ex.line.RouteSource)
	}

	req = get("docs.kamui.test", "/guide/start.html")
	ex = other.Begin(req)
	ex.Decide()
	_, rk = ex.Lookups()
	req.Route = w.lookup(rk)
	if ex.Decide() {
		t.Fatal("static route entry: decided without the content lookup")
	}
	if c, r := ex.Lookups(); c == "" || r != "" {
		t.Errorf("static route entry: lookups %q %q, want the content one only", c, r)
	}
}

// A static host whose content hits are served before its route is ever resolved still gets
// its route-cache entry remembered when that entry comes back first: otherwise every content
// hit would look the route up again beside its content lookup, and cross into the core once
// more for it.
func TestDecideRemembersStaticRouteEntryBackFirst(t *testing.T) {
	w := newWorld(t)
	ex, _ := w.adapt(w.h, get("docs.kamui.test", "/"))
	if ex.Plan.Store == nil {
		t.Fatal("static: nothing to store")
	}
	w.cache.store(ex.Plan.Store.Key, Entry{Status: 200, Header: ex.Plan.Store.Header, Body: TextBody("docs home")})
	other := w.handler(t)

	req := get("docs.kamui.test", "/")
	ex = other.Begin(req)
	ex.Decide()
	if c, r := ex.Lookups(); c == "" || r == "" {
		t.Fatalf("first request: lookups %q %q, want both", c, r)
	}
	_, rk := ex.Lookups()
	req.Route = w.lookup(rk)
	if ex.Decide() {
		t.Fatal("static route entry: decided without the content lookup")
	}
	c, _ := ex.Lookups()
	req.Content = w.lookup(c)
	if !ex.Decide() || ex.line.Delivery != "content-cache" {
		t.Fatalf("content hit: not served from the content cache (delivery %q, status %d)", ex.line.Delivery, ex.Plan.Status)
	}

	req = get("docs.kamui.test", "/")
	ex = other.Begin(req)
	ex.Decide()
	if c, r := ex.Lookups(); c == "" || r != "" {
		t.Errorf("second request: lookups %q %q, want the content one only (the route entry is remembered)", c, r)
	}
	req.Content = w.lookup(c)
	if !ex.Decide() || ex.line.Delivery != "content-cache" {
		t.Errorf("second request: not served from the content cache (delivery %q)", ex.line.Delivery)
	}
}

// The route lookup a content hit did not wait for is handed back afterwards (RememberRoute):
// the host's next requests make the content lookup alone, and a content miss among them is
// resolved from the memo, with no route lookup and no KV read. Only an entry the isolate has
// decoded before is taken (a first decode would hold up other requests after the response),
// and anything but a valid entry for the key's own host is ignored.
// The adapter decodes remember's message into one string, and the key is a piece of it: the
// host the memo keeps must be a copy, or each remembered host would keep its whole message
// (the route-cache entry with it) alive for the memo's lifetime.
func TestRememberRouteKeepsNoPieceOfItsMessage(t *testing.T) {
	w := newWorld(t)
	w.adapt(w.h, get("docs.kamui.test", "/"))
	h := w.handler(t)
	w.adapt(h, get("docs.kamui.test", "/guide/start.html")) // the entry, decoded once here
	w.clock.Advance(h.Config.TTLs.Memo)
	docsKey := route.RouteCacheKey(testPlatform, "docs.kamui.test")
	msg := docsKey + strings.Repeat("x", 4096)
	h.RememberRoute(msg[:len(docsKey)], *w.lookup(docsKey))
	start := uintptr(unsafe.Pointer(unsafe.StringData(msg)))
	found := false
	for host := range h.memo {
		if host != "docs.kamui.test" {
			continue
		}
		found = true
		if p := uintptr(unsafe.Pointer(unsafe.StringData(host))); p >= start && p < start+uintptr(len(msg)) {
			t.Error("the memo's host is a piece of the remember message")
		}
	}
	if !found {
		t.Fatal("RememberRoute did not memoize the host")
	}
}

func TestRememberRouteAfterContentHit(t *testing.T) {
	w := newWorld(t)
	ex, _ := w.adapt(w.h, get("docs.kamui.test", "/"))
	w.cache.store(ex.Plan.Store.Key, Entry{Status: 200, Header: ex.Plan.Store.Header, Body: TextBody("docs home")})
	w.adapt(w.h, get("shop.kamui.test", "/"))
	docsKey := route.RouteCacheKey(testPlatform, "docs.kamui.test")
	shopEntry := w.lookup(route.RouteCacheKey(testPlatform, "shop.kamui.test"))

	other := w.handler(t)
	contentHit := func() {
		t.Helper()
		req := get("docs.kamui.test", "/")
		ex := other.Begin(req)
		ex.Decide()
		c, rk := ex.Lookups()
		if rk != docsKey {
			t.Fatalf("route lookup %q, want %q", rk, docsKey)
		}
		req.Content = w.lookup(c)
		if !ex.Decide() || ex.line.Delivery != "content-cache" {
			t.Fatalf("content hit: not served from the content cache (delivery %q)", ex.line.Delivery)
		}
	}
	wantBoth := func(when string) {
		t.Helper()
		ex := other.Begin(get("docs.kamui.test", "/"))
		ex.Decide()
		if c, r := ex.Lookups(); c == "" || r == "" {
			t.Errorf("%s: lookups %q %q, want both (nothing remembered)", when, c, r)
		}
	}
	contentHit()
	other.RememberRoute(docsKey, *w.lookup(docsKey))
	wantBoth("an entry this isolate never decoded")

	// The isolate resolves the host once (a content miss, through the route cache), then its
	// memo entry expires.
	if _, steps := w.adapt(other, get("docs.kamui.test", "/guide/start.html")); steps != "decide,content,decide,route,decide,run" {
		t.Fatalf("content miss: steps %q", steps)
	}
	w.clock.Advance(other.Config.TTLs.Memo)
	contentHit()

	other.RememberRoute(docsKey, *shopEntry) // another host's entry under docs' key
	wantBoth("another host's entry")
	other.RememberRoute(route.RouteCacheKey("other.test", "docs.kamui.test"), *w.lookup(docsKey))
	wantBoth("another platform's key")
	other.RememberRoute(docsKey, Lookup{})
	wantBoth("a miss")

	other.RememberRoute(docsKey, *w.lookup(docsKey))
	reads, matches := w.kvReads(), w.matches()
	ex, steps := w.adapt(other, get("docs.kamui.test", "/guide/start.html"))
	if steps != "decide,content,decide,run" || ex.line.RouteSource != "memo" || ex.Plan.Status != 200 {
		t.Errorf("content miss after RememberRoute: steps %q source %q status %d, want the memo's route and no route lookup",
			steps, ex.line.RouteSource, ex.Plan.Status)
	}
	if w.kvReads() != reads || w.matches() != matches+1 {
		t.Errorf("content miss after RememberRoute: %d KV reads and %d lookups, want 0 and 1", w.kvReads()-reads, w.matches()-matches)
	}
}

// TestAbandonedFlightsDoNotPileUp: a request whose client leaves while its host's KV read is
// out never comes back to the core (in the Worker its promise is simply dropped), so the
// flight it leads is never ended. Such a flight stops counting after flightTimeout; it must
// not stay in the isolate for good either, or a flood of random hosts whose clients leave
// grows the isolate's memory without bound (the memo is bounded for the same reason).
func TestAbandonedFlightsDoNotPileUp(t *testing.T) {
	w := newWorld(t)
	const perRound, rounds = 3000, 5
	var first *Exchange
	for r := range rounds {
		for i := range perRound {
			req := get("h"+strconv.Itoa(r)+"-"+strconv.Itoa(i)+".kamui.test", "/")
			req.Method = "POST"
			req.Route = &Lookup{} // the route cache missed
			ex := w.h.Begin(req)
			if ex.Decide() {
				t.Fatal("decided a cold host without its KV read")
			}
			if first == nil {
				first = ex
			}
			// The client is gone: the named read never comes back.
		}
		w.clock.Advance(flightTimeout + time.Second)
	}
	w.h.mu.Lock()
	n := len(w.h.flights)
	w.h.mu.Unlock()
	if n > maxMemoEntries+perRound {
		t.Errorf("%d flights held after %d abandoned requests, each long past flightTimeout", n, perRound*rounds)
	}
	// A request that does come back, however late, still ends the flight it led: whoever
	// waits for it is woken.
	f := first.flight
	first.Run()
	select {
	case <-f.done:
	default:
		t.Error("a late request left its flight open")
	}
}
