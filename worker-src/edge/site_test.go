package edge

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// request builds a request for a site with a method and header fields.
func request(host, method, path string, hdr ...Field) *Request {
	r := get(host, path)
	r.Method, r.Header = method, Header(hdr)
	return r
}

// reads is what the bucket served since (objects, manifests) were counted.
func (w *world) reads(objects, manifests int) (int, int) {
	o, m := w.objects.counts()
	return o - objects, m - manifests
}

func TestSiteResolvesThroughManifest(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct{ path, file string }{
		{"/", "index.html"}, {"/guide/start.html", "guide/start.html"}, {"/data.txt", "data.txt"},
		{"/%64ata.csv", "data.csv"},
	} {
		f := casFiles[c.file]
		o0, m0 := w.objects.counts()
		ex := w.serve(w.h, get("cas.kamui.test", c.path))
		p := ex.Plan
		if p.Status != 200 || sent(t, p) != f.body {
			t.Fatalf("%s: %d %q", c.path, p.Status, sent(t, p))
		}
		want := map[string]string{
			"Content-Type": f.typ, "ETag": route.SiteETag(objectOf(f.body)), "Content-Length": itoa(len(f.body)),
			"X-Content-Type-Options": "nosniff", "Cache-Control": clientStaticCacheControl,
			"X-Request-Id": ex.RequestID(), "Accept-Ranges": "bytes",
		}
		for name, v := range want {
			if got := p.Header.Get(name); got != v {
				t.Errorf("%s: %s = %q, want %q", c.path, name, got, v)
			}
		}
		// The bucket's own metadata (the fake's text/html, ETag and upload time) is not used.
		if p.Header.Has("Last-Modified") || len(p.Header) != len(want) {
			t.Errorf("%s: headers %v", c.path, p.Header)
		}
		if objects, _ := w.reads(o0, m0); objects != 1 || w.objects.reads[len(w.objects.reads)-1] != route.SiteObjectKey("sites/cas/", objectOf(f.body)) {
			t.Errorf("%s: object reads %v", c.path, w.objects.reads[o0:])
		}
		// The full 200 is stored with the manifest's validator, so a content-cache hit
		// revalidates alike.
		if p.Store == nil || p.Store.Header.Get("ETag") != want["ETag"] || p.Store.Header.Get("Content-Type") != f.typ ||
			p.Store.Header.Get(route.CacheMarkerHeader) != testMarker || p.Store.Header.Has("Last-Modified") {
			t.Errorf("%s: store %+v", c.path, p.Store)
		}
		if l := logLineOf(t, w); l["outcome"] != "ok" || l["r2_reads"] != 1.0 || l["delivery"] != "static" {
			t.Errorf("%s: log %v", c.path, l)
		}
	}
	if _, manifests := w.objects.counts(); manifests != 1 {
		t.Errorf("%d manifest reads for one site in one isolate, want 1", manifests)
	}
}

func TestSiteSPAAndNotFound(t *testing.T) {
	w := newWorld(t)
	// SPA: an extension-less path gets the index with 200; a missing asset the fixed 404,
	// decided from the manifest without an object read.
	spa := w.serve(w.h, get("casspa.kamui.test", "/app/settings")).Plan
	if spa.Status != 200 || sent(t, spa) != "spa index" || spa.Header.Get("ETag") != route.SiteETag(objectOf("spa index")) {
		t.Errorf("spa route: %d %q %v", spa.Status, sent(t, spa), spa.Header)
	}
	// A route with a trailing slash is extension-less too, though the index's name is
	// appended to it before the lookup.
	for _, path := range []string{"/app/settings/", "/users/"} {
		if p := w.serve(w.h, get("casspa.kamui.test", path)).Plan; p.Status != 200 || sent(t, p) != "spa index" {
			t.Errorf("spa route %s: %d %q", path, p.Status, sent(t, p))
		}
	}
	o0, m0 := w.objects.counts()
	ex := w.serve(w.h, get("casspa.kamui.test", "/missing.js"))
	assertFixed(t, ex, 404, "missing.js")
	if objects, manifests := w.reads(o0, m0); objects != 0 || manifests != 0 || ex.line.Outcome != OutcomeStaticNotFound {
		t.Errorf("missing asset: %d object and %d manifest reads, outcome %q", objects, manifests, ex.line.Outcome)
	}
	// A path that can never name a file needs neither the manifest nor an object.
	fresh := w.handler(t)
	o0, m0 = w.objects.counts()
	assertFixed(t, w.serve(fresh, get("casspa.kamui.test", "/a/../b")), 404)
	if objects, manifests := w.reads(o0, m0); objects != 0 || manifests != 0 {
		t.Errorf("invalid path: %d object and %d manifest reads", objects, manifests)
	}

	// not_found: the 404 page with its body, never a 304 or a 206, never stored.
	for _, hdr := range []Header{nil, {{"If-None-Match", "*"}}, {{"If-None-Match", route.SiteETag(objectOf("cas 404"))}},
		{{"Range", "bytes=0-1"}}, {{"Range", "bytes=100-"}}} {
		req := get("cas.kamui.test", "/nope")
		req.Header = hdr
		p := w.serve(w.h, req).Plan
		if p.Status != 404 || sent(t, p) != "cas 404" || p.Range != nil || p.Store != nil || p.Header.Has("Accept-Ranges") ||
			p.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("404 page %v: %d %q range %v store %v headers %v", hdr, p.Status, sent(t, p), p.Range, p.Store, p.Header)
		}
	}
	// An invalid path with a 404 page gets the page.
	if p := w.serve(w.h, get("cas.kamui.test", "/%2e%2e/secret")).Plan; p.Status != 404 || sent(t, p) != "cas 404" {
		t.Errorf("invalid path: %d %q", p.Status, sent(t, p))
	}
	// HEAD of a missing path: the page's headers, no body, no object read.
	o0, m0 = w.objects.counts()
	if p := w.serve(w.h, request("cas.kamui.test", "HEAD", "/nope")).Plan; p.Status != 404 || p.Body != nil ||
		p.Header.Get("Content-Length") != itoa(len("cas 404")) {
		t.Errorf("HEAD of the 404 page: %d %v", p.Status, p.Header)
	}
	if objects, _ := w.reads(o0, m0); objects != 0 {
		t.Errorf("HEAD of the 404 page read %d objects", objects)
	}
}

// 304, HEAD and 416 are decided from the manifest alone: no object is read for them.
func TestSiteDecidesBeforeReadingObject(t *testing.T) {
	w := newWorld(t)
	body := w.serve(w.h, get("cas.kamui.test", "/data.txt")).Plan // the manifests are read here
	w.serve(w.h, get("casspa.kamui.test", "/"))
	etag := body.Header.Get("ETag")
	o0, m0 := w.objects.counts()
	for _, c := range []struct {
		name   string
		req    *Request
		status int
	}{
		{"If-None-Match", request("cas.kamui.test", "GET", "/data.txt", Field{"If-None-Match", etag}), 304},
		{"If-None-Match weak", request("cas.kamui.test", "GET", "/data.txt", Field{"If-None-Match", "W/" + etag}), 304},
		{"If-None-Match before Range", request("cas.kamui.test", "GET", "/data.txt", Field{"Range", "bytes=0-3"}, Field{"If-None-Match", etag}), 304},
		{"HEAD", request("cas.kamui.test", "HEAD", "/data.txt"), 200},
		{"HEAD Range", request("cas.kamui.test", "HEAD", "/data.txt", Field{"Range", "bytes=0-3"}), 200},
		{"HEAD If-None-Match", request("cas.kamui.test", "HEAD", "/data.txt", Field{"If-None-Match", etag}), 304},
		{"HEAD SPA route", request("casspa.kamui.test", "HEAD", "/deep/link"), 200},
		{"Range unsatisfiable", request("cas.kamui.test", "GET", "/data.txt", Field{"Range", "bytes=20-"}), 416},
	} {
		ex := w.serve(w.h, c.req)
		p := ex.Plan
		if p.Status != c.status || p.Body != nil && p.Status != 416 {
			t.Errorf("%s: %d body %v", c.name, p.Status, p.Body)
		}
		if c.status == 200 && strings.Contains(c.req.URL, "cas.kamui.test/data.txt") {
			for _, name := range []string{"Content-Type", "Content-Length", "ETag", "Accept-Ranges", "Cache-Control", "X-Content-Type-Options"} {
				if p.Header.Get(name) != body.Header.Get(name) {
					t.Errorf("%s: %s %q, GET has %q", c.name, name, p.Header.Get(name), body.Header.Get(name))
				}
			}
		}
		if c.status == 304 && (p.Header.Get("ETag") != etag || p.Header.Has("Content-Length") || p.Header.Has("Last-Modified")) {
			t.Errorf("%s: 304 headers %v", c.name, p.Header)
		}
		if p.Store != nil {
			t.Errorf("%s: stored", c.name)
		}
		if l := logLineOf(t, w); l["r2_reads"] != nil || l["manifest_reads"] != nil || l["outcome"] != "ok" {
			t.Errorf("%s: log %v", c.name, l)
		}
	}
	if objects, manifests := w.reads(o0, m0); objects != 0 || manifests != 0 {
		t.Errorf("%d object and %d manifest reads, want none", objects, manifests)
	}
	// If-Modified-Since alone: there is no Last-Modified to compare with, so the full 200.
	p := w.serve(w.h, request("cas.kamui.test", "GET", "/data.txt", Field{"If-Modified-Since", "Mon, 30 Nov 2099 00:00:00 GMT"})).Plan
	if p.Status != 200 || sent(t, p) != dataBody {
		t.Errorf("If-Modified-Since alone: %d %q", p.Status, sent(t, p))
	}
	// With the manifest in memory and the route memoized, the adapter's Decide answers a
	// revalidation without Run: no I/O at all beyond the content lookup.
	req := request("cas.kamui.test", "GET", "/guide/start.html", Field{"If-None-Match", route.SiteETag(objectOf("start"))})
	if ex, steps := w.adapt(w.h, req); ex.Plan.Status != 304 || steps != "decide,content,decide" {
		t.Errorf("revalidation through Decide: %d steps %q", ex.Plan.Status, steps)
	}
	// A body is I/O: Decide names the object, and the adapter's read of it decides, with no
	// Run; the log counts the read and its round as Run's read would.
	o0, _ = w.objects.counts()
	if ex, steps := w.adapt(w.h, get("cas.kamui.test", "/guide/start.html")); ex.Plan.Status != 200 || steps != "decide,content,decide,object,decide" ||
		sent(t, ex.Plan) != "start" {
		t.Errorf("body through Decide: %d steps %q", ex.Plan.Status, steps)
	}
	if l := logLineOf(t, w); l["r2_reads"] != 1.0 || l["io_rounds"] != 2.0 || l["manifest_reads"] != nil {
		t.Errorf("body through Decide: log %v", l)
	}
	if objects, _ := w.objects.counts(); objects != o0+1 {
		t.Errorf("body through Decide: %d object reads, want 1", objects-o0)
	}
}

// The object a Decide reads is the one it named: an adapter's read of another key (the
// route moved to another version between two passes) is not served; the new key is named,
// as a round of its own.
func TestSiteObjectOfAnotherKeyIsNamedAgain(t *testing.T) {
	w := newWorld(t)
	w.serve(w.h, get("cas.kamui.test", "/data.txt")) // the manifest and the route, in memory
	req := get("cas.kamui.test", "/guide/start.html")
	ex := w.h.Begin(req)
	if ex.Decide() {
		t.Fatal("decided without the content lookup")
	}
	req.Content = &Lookup{}
	if ex.Decide() || ex.ObjectKey() == "" {
		t.Fatalf("after the content miss: object %q", ex.ObjectKey())
	}
	key, rounds := ex.ObjectKey(), ex.askedRounds
	ex.askedObject = route.SiteObjectKey("sites/cas/", objectOf("an older version"))
	req.Object = &ObjectRead{Found: true, Object: Object{Header: Header{{"Content-Length", "16"}}, Body: TextBody("an older version")}}
	if ex.Decide() || ex.ObjectKey() != key || ex.askedRounds != rounds+1 {
		t.Fatalf("another key's read: decided, or named %q (want %q) in %d rounds (want %d)", ex.ObjectKey(), key, ex.askedRounds, rounds+1)
	}
	r := new(ObjectRead)
	r.Object, r.Found, r.Err = w.objects.Get(key, true)
	req.Object = r
	if !ex.Decide() || ex.Plan.Status != 200 || sent(t, ex.Plan) != "start" {
		t.Errorf("the named key's read: status %d", ex.Plan.Status)
	}
}

// The manifest is read once per isolate for any number of requests, and again only by a
// new isolate or once the freshness budget has passed.
func TestSiteManifestReadOncePerIsolate(t *testing.T) {
	w := newWorld(t)
	paths := []string{"/", "/data.txt", "/guide/start.html", "/nope", "/data.csv"}
	for i := 0; i < 50; i++ {
		ex := w.serve(w.h, get("cas.kamui.test", paths[i%len(paths)]+"?n="+itoa(i)))
		want := 0.0
		if i == 0 {
			want = 1
		}
		if l := logLineOf(t, w); (l["manifest_reads"] == nil && want != 0) || (l["manifest_reads"] != nil && l["manifest_reads"] != want) {
			t.Fatalf("request %d: manifest_reads %v, want %v", i, l["manifest_reads"], want)
		}
		if ex.Plan.Status != 200 && ex.Plan.Status != 404 {
			t.Fatalf("request %d: %d", i, ex.Plan.Status)
		}
	}
	if _, manifests := w.objects.counts(); manifests != 1 {
		t.Fatalf("50 requests read the manifest %d times, want 1", manifests)
	}
	w.serve(w.handler(t), get("cas.kamui.test", "/"))
	if _, manifests := w.objects.counts(); manifests != 2 {
		t.Errorf("a new isolate: %d manifest reads, want 2", manifests)
	}
	w.clock.Advance(w.h.Config.TTLs.Budget - time.Second)
	w.serve(w.h, get("cas.kamui.test", "/?late"))
	if _, manifests := w.objects.counts(); manifests != 2 {
		t.Errorf("within the budget: %d manifest reads, want 2", manifests)
	}
	w.clock.Advance(time.Second)
	w.serve(w.h, get("cas.kamui.test", "/?later"))
	if _, manifests := w.objects.counts(); manifests != 3 {
		t.Errorf("after the budget: %d manifest reads, want 3", manifests)
	}
}

// Concurrent misses of one manifest wait for the first request's read instead of reading
// it again. Deterministic: the followers are counted as they start waiting.
func TestSiteConcurrentMissesShareOneRead(t *testing.T) {
	w := newWorld(t)
	h := w.handler(t)
	key := putSite(t, w.objects.data, "sites/fresh/", "v1", map[string]siteContent{"index.html": {"text/html", "fresh"}})
	w.routes.data["fresh"] = record(t, siteRecord("fresh", key, "", false))
	waiting := make(chan struct{})
	h.WaitShared = func(done <-chan struct{}) { waiting <- struct{}{}; <-done }
	entered := make(chan struct{})
	w.objects.textEntered, w.objects.textGate = entered, make(chan struct{})

	const n = 8
	exs := make([]*Exchange, n)
	var wg sync.WaitGroup
	for i := range exs {
		wg.Add(1)
		go func() { defer wg.Done(); exs[i] = h.Serve(get("fresh.kamui.test", "/")) }()
		if i == 0 {
			<-entered // the leader is reading the manifest
		} else {
			<-waiting // this one waits for it
		}
	}
	close(w.objects.textGate)
	wg.Wait()
	for i, ex := range exs {
		if ex.Plan.Status != 200 || sent(t, ex.Plan) != "fresh" {
			t.Errorf("request %d: %d %q", i, ex.Plan.Status, sent(t, ex.Plan))
		}
	}
	if _, manifests := w.objects.counts(); manifests != 1 {
		t.Errorf("%d concurrent misses read the manifest %d times, want once", n, manifests)
	}
	if h.sites.flights["sites/fresh/manifests/v1.json"] != nil || len(h.sites.entries) != 1 {
		t.Errorf("flight left behind or manifest not remembered: %v", h.sites.entries)
	}
}

func TestSiteMemoBoundEvictsLeastRecentlyUsed(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	now := exp.Add(-time.Hour)
	files := func(n int) siteManifest {
		f := siteFiles{}
		for i := 0; i < n; i++ {
			f[strconv.Itoa(i)] = siteFile{}
		}
		return siteManifest{files: f}
	}
	has := func(m *siteMemo, keys ...string) string {
		var in []string
		for _, k := range keys {
			if _, ok := m.entries[k]; ok {
				in = append(in, k)
			}
		}
		return strings.Join(in, ",")
	}

	// By entries: the fourth manifest evicts the least recently used of three.
	m := &siteMemo{maxManifests: 3, maxFiles: 100}
	m.put("a", "", files(1), "", exp)
	m.put("b", "", files(1), "", exp)
	m.put("c", "", files(1), "", exp)
	m.get("a", now) // b is now the least recently used
	m.put("d", "", files(1), "", exp)
	if got := has(m, "a", "b", "c", "d"); got != "a,c,d" || m.files != 3 {
		t.Errorf("entries bound: memo holds %q (%d files), want a,c,d", got, m.files)
	}

	// By files: a large manifest evicts as many of the least recently used as it takes.
	m = &siteMemo{maxManifests: 10, maxFiles: 10}
	m.put("a", "", files(4), "", exp)
	m.put("b", "", files(4), "", exp)
	m.get("a", now)
	m.put("c", "", files(5), "", exp) // 13 > 10: b goes, a (used since) stays
	if got := has(m, "a", "b", "c"); got != "a,c" || m.files != 9 {
		t.Errorf("files bound: memo holds %q (%d files), want a,c (9)", got, m.files)
	}
	m.put("d", "", files(10), "", exp) // needs the whole bound
	if got := has(m, "a", "c", "d"); got != "d" || m.files != 10 {
		t.Errorf("files bound: memo holds %q (%d files), want d", got, m.files)
	}
	m.put("e", "", files(11), "", exp) // larger than the bound: not remembered, nothing evicted
	if got := has(m, "d", "e"); got != "d" || m.files != 10 {
		t.Errorf("oversized manifest: memo holds %q (%d files)", got, m.files)
	}
	// Expired entries are dropped when looked up.
	if _, ok := m.get("d", exp); ok || m.files != 0 || len(m.entries) != 0 {
		t.Errorf("expired entry served: files %d entries %d", m.files, len(m.entries))
	}

	// Through the handler, with the default bound of entries: one manifest more than it
	// holds, and the least recently used one is read again.
	w := newWorld(t)
	var hosts []string
	for i := 0; i <= defaultMaxSiteManifests; i++ {
		app := "site" + itoa(i)
		key := putSite(t, w.objects.data, "sites/"+app+"/", "v1", map[string]siteContent{"index.html": {"text/html", app}})
		w.routes.data[app] = record(t, siteRecord(app, key, "", false))
		hosts = append(hosts, app+".kamui.test")
	}
	for _, host := range hosts[:defaultMaxSiteManifests] {
		w.serve(w.h, request(host, "HEAD", "/"))
	}
	w.serve(w.h, request(hosts[0], "HEAD", "/")) // site0 used again: site1 is the oldest
	w.serve(w.h, request(hosts[defaultMaxSiteManifests], "HEAD", "/"))
	_, m0 := w.objects.counts()
	w.serve(w.h, request(hosts[0], "HEAD", "/"))
	if _, manifests := w.objects.counts(); manifests != m0 {
		t.Errorf("the recently used manifest was evicted")
	}
	w.serve(w.h, request(hosts[1], "HEAD", "/"))
	if _, manifests := w.objects.counts(); manifests != m0+1 {
		t.Errorf("the least recently used manifest was not evicted")
	}
	if n := len(w.h.sites.entries); n != defaultMaxSiteManifests {
		t.Errorf("memo holds %d manifests, bound %d", n, defaultMaxSiteManifests)
	}
}

// TestSiteMemoShardsOfOneVersionTakeAShare: a crawl of a large split site reads shard after
// shard. Past its share of the entries, each new shard takes the place of that version's own
// least recently used one, never another site's manifest: a site's size costs its own visitors
// reads, not every tenant in the isolate.
func TestSiteMemoShardsOfOneVersionTakeAShare(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	now := exp.Add(-time.Hour)
	one := siteManifest{files: siteFiles{"f": siteFile{}}}
	const root = "sites/big/manifests/v1.json"
	shard := func(i int) string { return route.SiteShardKey(root, i) }
	m := &siteMemo{maxManifests: 16, maxFiles: 1000}
	share := m.maxShardsPerVersion()
	if share != 2 {
		t.Fatalf("a version's share of 16 entries is %d, want 2 (an eighth)", share)
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		m.put(k, "", one, "", exp)
	}
	for i := 0; i < 10; i++ {
		m.put(shard(i), root, one, "", exp)
	}
	held := func() []string {
		var in []string
		for k := range m.entries {
			in = append(in, k)
		}
		slices.Sort(in)
		return in
	}
	want := []string{"a", "b", "c", "d", shard(8), shard(9)}
	slices.Sort(want)
	if got := held(); !slices.Equal(got, want) || m.files != 6 {
		t.Fatalf("after a crawl of ten shards the memo holds %v (%d files), want %v", got, m.files, want)
	}
	// Its own order of use decides which of its shards goes.
	m.get(shard(8), now)
	m.put(shard(10), root, one, "", exp)
	if _, ok := m.entries[shard(9)]; ok || m.entries[shard(8)] == nil || m.entries[shard(10)] == nil {
		t.Errorf("the shard used since was evicted, or the least recently used one kept: %v", held())
	}
	// Another version has a share of its own; dropped shards give theirs back.
	const other = "sites/big/manifests/v2.json"
	m.put(route.SiteShardKey(other, 0), other, one, "", exp)
	m.put(route.SiteShardKey(other, 1), other, one, "", exp)
	if m.shardsOf[root] != share || m.shardsOf[other] != 2 || len(m.entries) != 8 {
		t.Errorf("two versions hold %d and %d shards (%d entries), want %d, 2 (8)", m.shardsOf[root], m.shardsOf[other], len(m.entries), share)
	}
	m.drop(shard(8))
	m.drop(shard(10))
	if _, ok := m.shardsOf[root]; ok {
		t.Errorf("a version whose shards all went still counts %d", m.shardsOf[root])
	}
	// Put again under the same key, a shard replaces itself.
	m.put(shard(3), root, one, "", exp)
	m.put(shard(3), root, one, "", exp)
	if m.shardsOf[root] != 1 {
		t.Errorf("one shard put twice counts %d", m.shardsOf[root])
	}
}

// The order of use the memo keeps in its ring evicts what a scan for the least recently used
// entry would: random puts, gets (live and expired) and drops, checked against a model that
// stamps every use and scans, the way the memo chose before it kept the ring.
func TestSiteMemoEvictionMatchesAScanForTheLeastRecentlyUsed(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	live, expired := exp.Add(-time.Hour), exp
	type modelEntry struct{ used, files int }
	const maxManifests, maxFiles = 5, 12
	m := &siteMemo{maxManifests: maxManifests, maxFiles: maxFiles}
	model := map[string]*modelEntry{}
	modelFiles, tick := 0, 0
	rng := uint32(1)
	next := func(n int) int { rng = rng*1664525 + 1013904223; return int(rng>>16) % n }
	for step := 0; step < 20000; step++ {
		key := "k" + strconv.Itoa(next(12))
		switch op := next(10); {
		case op < 5: // put
			n := 1 + next(6)
			f := siteFiles{}
			for i := 0; i < n; i++ {
				f[strconv.Itoa(i)] = siteFile{}
			}
			m.put(key, "", siteManifest{files: f}, "", exp)
			if e := model[key]; e != nil {
				modelFiles -= e.files
				delete(model, key)
			}
			for len(model) > 0 && (len(model) >= maxManifests || modelFiles+n > maxFiles) {
				oldest, used := "", 0
				for k, e := range model {
					if oldest == "" || e.used < used {
						oldest, used = k, e.used
					}
				}
				modelFiles -= model[oldest].files
				delete(model, oldest)
			}
			tick++
			model[key] = &modelEntry{used: tick, files: n}
			modelFiles += n
		case op < 8: // a live get
			_, ok := m.get(key, live)
			if e := model[key]; e != nil {
				tick++
				e.used = tick
			}
			if ok != (model[key] != nil) {
				t.Fatalf("step %d: get(%s) = %v, model holds it: %v", step, key, ok, model[key] != nil)
			}
		case op < 9: // an expired get drops an entry without kept text
			m.get(key, expired)
			if e := model[key]; e != nil {
				modelFiles -= e.files
				delete(model, key)
			}
		default:
			m.drop(key)
			if e := model[key]; e != nil {
				modelFiles -= e.files
				delete(model, key)
			}
		}
		if len(m.entries) != len(model) || m.files != modelFiles {
			t.Fatalf("step %d: memo holds %d entries (%d files), model %d (%d)", step, len(m.entries), m.files, len(model), modelFiles)
		}
		for k := range model {
			if m.entries[k] == nil {
				t.Fatalf("step %d: memo lost %s, which the model keeps", step, k)
			}
		}
		// The ring links every entry once, most recently used first.
		ring, last := 0, -1
		for e := m.recent; e != nil; e = e.next {
			if used := model[e.key].used; last >= 0 && used > last {
				t.Fatalf("step %d: ring out of order of use at %s", step, e.key)
			} else {
				last = used
			}
			if ring++; e.next == m.recent {
				break
			}
		}
		if ring != len(model) {
			t.Fatalf("step %d: ring links %d entries, memo holds %d", step, ring, len(model))
		}
	}
}

// A manifest that cannot be read or decoded is a 502 naming the problem in the log, never
// remembered: once it is fixed, the next request serves the site.
func TestSiteManifestFailures(t *testing.T) {
	obj := objectOf("x")
	for _, c := range []struct {
		name, manifest string // "" : no manifest
		readErr        error
		want           string // in the logged error
	}{
		{"missing", "", nil, "not found"},
		{"read error", `{}`, errBoom, "boom"},
		{"not JSON", `{"v":1,"files":`, nil, "manifest"},
		{"unknown field", `{"v":1,"files":{"index.html":{"object":"` + obj + `","type":"text/html","size":1}},"extra":1}`, nil, "manifest"},
		{"other version", `{"v":2,"files":{"index.html":{"object":"` + obj + `","type":"text/html","size":1}}}`, nil, "v"},
		{"no files", `{"v":1,"files":{}}`, nil, "files"},
		{"type with CR/LF", `{"v":1,"files":{"index.html":{"object":"` + obj + `","type":"text/html\r\nSet-Cookie: a=1","size":1}}}`, nil, "type"},
		{"bad object", `{"v":1,"files":{"index.html":{"object":"../../secret","type":"text/html","size":1}}}`, nil, "object"},
		{"negative size", `{"v":1,"files":{"index.html":{"object":"` + obj + `","type":"text/html","size":-1}}}`, nil, "size"},
		{"path outside the site", `{"v":1,"files":{"../index.html":{"object":"` + obj + `","type":"text/html","size":1}}}`, nil, "path"},
		{"too large", `{"v":1,"files":{}}` + strings.Repeat(" ", route.MaxSiteManifestBytes), nil, "larger"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			key := route.SiteManifestKey("sites/bad/", "v1")
			w.objects.data[route.SiteObjectKey("sites/bad/", obj)] = "x"
			if c.manifest != "" {
				w.objects.data[key] = c.manifest
			}
			w.routes.data["bad"] = record(t, siteRecord("bad", key, "", false))
			w.objects.textErr = c.readErr
			for _, method := range []string{"GET", "HEAD"} {
				o0, _ := w.objects.counts()
				ex := w.serve(w.h, request("bad.kamui.test", method, "/"))
				if method == "GET" {
					assertFixed(t, ex, 502, "Set-Cookie", "secret")
				}
				if ex.Plan.Status != 502 || ex.Plan.Header.Has("Set-Cookie") || ex.line.Outcome != OutcomeStaticError {
					t.Errorf("%s: headers %v outcome %q", method, ex.Plan.Header, ex.line.Outcome)
				}
				l := logLineOf(t, w)
				if e, _ := l["error"].(string); !strings.Contains(e, key) || !strings.Contains(e, c.want) {
					t.Errorf("%s: logged error %q, want the manifest key and %q", method, e, c.want)
				}
				if l["manifest_reads"] != 1.0 { // read again: a failure is never remembered
					t.Errorf("%s: manifest_reads %v", method, l["manifest_reads"])
				}
				if objects, _ := w.reads(o0, 0); objects != 0 {
					t.Errorf("%s: %d object reads", method, objects)
				}
			}
			// Fixed: served at once, although the route is memoized.
			w.objects.textErr = nil
			putSite(t, w.objects.data, "sites/bad/", "v1", map[string]siteContent{"index.html": {"text/html", "x"}})
			if p := w.serve(w.h, get("bad.kamui.test", "/")).Plan; p.Status != 200 || sent(t, p) != "x" {
				t.Errorf("after the fix: %d %q", p.Status, sent(t, p))
			}
		})
	}
}

// An object the manifest names must be there with the manifest's size: otherwise a 502,
// before any byte is sent.
func TestSiteObjectMissingOrOfAnotherSize(t *testing.T) {
	w := newWorld(t)
	dataObj := route.SiteObjectKey("sites/cas/", objectOf(dataBody))
	homeObj := route.SiteObjectKey("sites/cas/", objectOf("cas home"))
	delete(w.objects.data, homeObj)
	w.objects.data[dataObj] = dataBody + "!"
	for _, c := range []struct{ path, key, want string }{
		{"/", homeObj, "not found"},
		{"/data.txt", dataObj, "size 21, manifest says 20"},
	} {
		ex := w.serve(w.h, get("cas.kamui.test", c.path))
		assertFixed(t, ex, 502)
		if e := ex.line.Error; ex.line.Outcome != OutcomeStaticError || !strings.Contains(e, c.key) || !strings.Contains(e, c.want) {
			t.Errorf("%s: outcome %q error %q", c.path, ex.line.Outcome, e)
		}
		// Revalidation and HEAD are still answered from the manifest.
		if p := w.serve(w.h, request("cas.kamui.test", "HEAD", c.path)).Plan; p.Status != 200 {
			t.Errorf("HEAD %s: %d", c.path, p.Status)
		}
	}
	// The adapter's read, for a Decide that named the object, is held to the same checks.
	for _, c := range []struct{ path, key, want string }{
		{"/", homeObj, "not found"},
		{"/data.txt", dataObj, "size 21, manifest says 20"},
	} {
		ex, steps := w.adapt(w.h, get("cas.kamui.test", c.path))
		assertFixed(t, ex, 502)
		if e := ex.line.Error; steps != "decide,content,decide,object,decide" || !strings.Contains(e, c.key) || !strings.Contains(e, c.want) {
			t.Errorf("%s through Decide: steps %q error %q", c.path, steps, e)
		}
	}
	// The bucket failing is a 502 too, on either way.
	w.objects.err = errBoom
	if ex := w.serve(w.h, get("cas.kamui.test", "/guide/start.html")); ex.Plan.Status != 502 || !strings.Contains(ex.line.Error, "boom") {
		t.Errorf("bucket failure: %d %q", ex.Plan.Status, ex.line.Error)
	}
	if ex, _ := w.adapt(w.h, get("cas.kamui.test", "/guide/start.html")); ex.Plan.Status != 502 || !strings.Contains(ex.line.Error, "boom") {
		t.Errorf("bucket failure through Decide: %d %q", ex.Plan.Status, ex.line.Error)
	}
}

// A new version changes one file: once the record names its manifest, the old ETag of the
// changed path gets the new content, and an unchanged path (the same object) revalidates.
func TestSiteRecordMovesToNewManifest(t *testing.T) {
	w := newWorld(t)
	oldData := w.serve(w.h, get("cas.kamui.test", "/data.txt")).Plan.Header.Get("ETag")
	oldStart := w.serve(w.h, get("cas.kamui.test", "/guide/start.html")).Plan.Header.Get("ETag")

	v2 := map[string]siteContent{}
	for p, c := range casFiles {
		v2[p] = c
	}
	v2["data.txt"] = siteContent{"text/plain; charset=utf-8", "version two"}
	w.routes.data["cas"] = record(t, siteRecord("cas", putSite(t, w.objects.data, "sites/cas/", "v2", v2), "404.html", false))
	// The old version is kept (a rollback target); its manifest and objects stay.
	w.clock.Advance(w.h.Config.TTLs.Budget) // every cache the old record may sit in has expired

	ex := w.serve(w.h, request("cas.kamui.test", "GET", "/data.txt", Field{"If-None-Match", oldData}))
	if p := ex.Plan; p.Status != 200 || sent(t, p) != "version two" || p.Header.Get("ETag") != route.SiteETag(objectOf("version two")) {
		t.Errorf("changed path with the old ETag: %d %q %v", p.Status, sent(t, p), p.Header)
	}
	if ex.line.ManifestReads != 1 || ex.line.RouteSource != "kv" {
		t.Errorf("new version: manifest_reads %d route %q", ex.line.ManifestReads, ex.line.RouteSource)
	}
	ex = w.serve(w.h, request("cas.kamui.test", "GET", "/guide/start.html", Field{"If-None-Match", oldStart}))
	if ex.Plan.Status != 304 || ex.line.R2Reads != 0 {
		t.Errorf("unchanged path with its ETag: %d, %d object reads", ex.Plan.Status, ex.line.R2Reads)
	}
	// Rolling back is pointing the record at the old manifest again: nothing is uploaded.
	w.routes.data["cas"] = record(t, siteRecord("cas", route.SiteManifestKey("sites/cas/", "v1"), "404.html", false))
	w.clock.Advance(w.h.Config.TTLs.Budget)
	if p := w.serve(w.h, get("cas.kamui.test", "/data.txt?back")).Plan; p.Status != 200 || sent(t, p) != dataBody || p.Header.Get("ETag") != oldData {
		t.Errorf("rollback: %d %q %v", p.Status, sent(t, p), p.Header)
	}
}

// A request path longer than a site may hold (route.MaxSitePathBytes) is refused before any
// lookup, in both layouts: with a 404 page, the page answers; no object is read under it.
// The same bound decides which paths a manifest may hold, so the longest path a site can
// have is still served.
func TestStaticPathLongerThanASiteMayHold(t *testing.T) {
	w := newWorld(t)
	longest := strings.Repeat("a", route.MaxSitePathBytes)
	for _, c := range []struct{ host, page string }{{"docs.kamui.test", "docs 404"}, {"cas.kamui.test", "cas 404"}} {
		before := len(w.objects.reads)
		p := w.serve(w.h, get(c.host, "/"+longest+"a")).Plan
		if p.Status != 404 || sent(t, p) != c.page {
			t.Errorf("%s: path of %d bytes: %d %q, want the 404 page", c.host, route.MaxSitePathBytes+1, p.Status, sent(t, p))
		}
		for _, k := range w.objects.reads[before:] {
			if strings.Contains(k, longest) {
				t.Errorf("%s: read an object under the long path (a key of %d bytes)", c.host, len(k))
			}
		}
	}
	// The longest path the bound allows is looked up under the prefix (layout by prefix).
	before := len(w.objects.reads)
	w.serve(w.h, get("docs.kamui.test", "/"+longest))
	looked := false
	for _, k := range w.objects.reads[before:] {
		looked = looked || k == "sites/docs/v1/"+longest
	}
	if !looked {
		t.Errorf("the longest allowed path was not looked up: reads %d", len(w.objects.reads)-before)
	}
}

// A manifest is read again once the freshness budget has passed, as before; when its text is
// the one decoded last time, the files decoded then are used again without a second decode.
// Different text under the same key is decoded and served; a manifest gone from the bucket
// is a 502 as before, whatever the memo kept; and a manifest larger than the kept bound is
// decoded on every read.
func TestSiteManifestReadAgainUnchangedIsNotDecodedAgain(t *testing.T) {
	w := newWorld(t)
	serve := func(path string) *Exchange {
		t.Helper()
		w.clock.Advance(w.h.Config.TTLs.Budget) // the memo's entry (and the route) has expired
		return w.serve(w.h, get("cas.kamui.test", path))
	}
	key := route.SiteManifestKey("sites/cas/", "v1")

	if ex := serve("/data.txt?1"); ex.Plan.Status != 200 || sent(t, ex.Plan) != dataBody || w.h.sites.decodes != 1 {
		t.Fatalf("first read: %d %q, %d decodes", ex.Plan.Status, sent(t, ex.Plan), w.h.sites.decodes)
	}
	ex := serve("/data.txt?2")
	if ex.line.ManifestReads != 1 || w.h.sites.decodes != 1 {
		t.Errorf("unchanged manifest after the budget: %d reads in the request, %d decodes in all, want 1 and 1",
			ex.line.ManifestReads, w.h.sites.decodes)
	}
	if ex.Plan.Status != 200 || sent(t, ex.Plan) != dataBody {
		t.Errorf("unchanged manifest: %d %q", ex.Plan.Status, sent(t, ex.Plan))
	}

	// The same key with other text (a manifest is never rewritten, but the Worker does not
	// rely on it): decoded, and its files are served.
	v2 := map[string]siteContent{}
	for p, c := range casFiles {
		v2[p] = c
	}
	v2["data.txt"] = siteContent{"text/plain; charset=utf-8", "rewritten"}
	w.objects.data[key] = w.objects.data[putSite(t, w.objects.data, "sites/cas/", "v2", v2)]
	if ex := serve("/data.txt?3"); sent(t, ex.Plan) != "rewritten" || w.h.sites.decodes != 2 {
		t.Errorf("changed text: %q, %d decodes, want the new file and 2", sent(t, ex.Plan), w.h.sites.decodes)
	}

	// Gone from the bucket: a 502, not the files the memo kept.
	delete(w.objects.data, key)
	if ex := serve("/data.txt?4"); ex.Plan.Status != 502 || ex.line.Outcome != OutcomeStaticError {
		t.Errorf("removed manifest: %d %s, want 502 static-error", ex.Plan.Status, ex.line.Outcome)
	}

	// A manifest above the kept bound is decoded again each time it is read.
	big := map[string]siteContent{"index.html": {"text/html", "big"}}
	for i := 0; len(big)*100 < maxKeptSiteText; i++ {
		big["f/"+itoa(i)+".txt"] = siteContent{"text/plain", "file " + itoa(i)}
	}
	w.routes.data["cas"] = record(t, siteRecord("cas", putSite(t, w.objects.data, "sites/cas/", "big", big), "", false))
	if len(w.objects.data[route.SiteManifestKey("sites/cas/", "big")]) <= maxKeptSiteText {
		t.Fatal("the big manifest is not above the bound")
	}
	before := w.h.sites.decodes
	serve("/?5")
	serve("/?6")
	if got := w.h.sites.decodes - before; got != 2 {
		t.Errorf("manifest above the kept bound: %d decodes for two reads, want 2", got)
	}
}

// A directory's path without its slash is redirected to the directory (308, the query kept),
// as a file server answers, so that the relative links of its index resolve under it; for a
// single-page app too, where the path would otherwise get the app's root index. Nothing is
// read but the manifest, and nothing is stored.
func TestSiteDirectoryRedirect(t *testing.T) {
	w := newWorld(t)
	for _, spa := range []bool{false, true} {
		app := "dirs"
		if spa {
			app = "dirsspa"
		}
		w.routes.data[app] = record(t, siteRecord(app, putSite(t, w.objects.data, "sites/"+app+"/", "v1", map[string]siteContent{
			"index.html":          {"text/html; charset=utf-8", "home"},
			"docs/index.html":     {"text/html; charset=utf-8", "docs index"},
			"docs/a b/index.html": {"text/html; charset=utf-8", "spaced"},
			"notes":               {"text/plain; charset=utf-8", "a file, not a directory"},
			"notes/index.html":    {"text/html; charset=utf-8", "shadowed"},
		}), "", spa))
		host := app + ".kamui.test"
		for _, c := range []struct{ path, location string }{
			{"/docs", "/docs/"},
			{"/docs?x=1&y", "/docs/?x=1&y"},
			{"/docs/a%20b", "/docs/a%20b/"},
		} {
			o0, _ := w.objects.counts()
			for _, method := range []string{"GET", "HEAD"} {
				ex := w.serve(w.h, request(host, method, c.path))
				p := ex.Plan
				if p.Status != 308 || p.Header.Get("Location") != c.location || p.Body != nil || p.Store != nil || ex.line.Outcome != OutcomeOK {
					t.Errorf("spa=%v %s %s: %d Location %q body %v store %v outcome %v", spa, method, c.path, p.Status, p.Header.Get("Location"), p.Body != nil, p.Store, ex.line.Outcome)
				}
			}
			if objects, _ := w.objects.counts(); objects != o0 {
				t.Errorf("spa=%v %s: %d object reads for a redirect", spa, c.path, objects-o0)
			}
		}
		// The directory itself, and a file that shares a directory's name, are served.
		if p := w.serve(w.h, get(host, "/docs/")).Plan; p.Status != 200 || sent(t, p) != "docs index" {
			t.Errorf("spa=%v /docs/: %d %q", spa, p.Status, sent(t, p))
		}
		if p := w.serve(w.h, get(host, "/notes")).Plan; p.Status != 200 || sent(t, p) != "a file, not a directory" {
			t.Errorf("spa=%v /notes: %d %q", spa, p.Status, sent(t, p))
		}
	}
}
