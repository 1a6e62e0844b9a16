package edge

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

const (
	testPlatform = "kamui.test"
	testSecret   = "unit-test-signing-secret-0123456789"
	testMarker   = "unit-test-marker-0123456789"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fakeKV struct {
	mu    sync.Mutex
	data  map[string]string
	err   error
	reads []string
	ttls  []time.Duration
	gate  chan struct{} // when set, Get waits for it (single-flight tests)
	stall chan struct{} // when set, only the next Get waits for it
	// filterReads are the cacheTtls of the reads of route.FilterKey; filterErr fails them.
	filterReads []time.Duration
	filterErr   error
}

func (k *fakeKV) filterCount() int { k.mu.Lock(); defer k.mu.Unlock(); return len(k.filterReads) }

func (k *fakeKV) Get(key string, ttl time.Duration) ([]byte, bool, error) {
	if key == route.FilterKey {
		// The name filter's reads are counted apart (filterReads), and never gated, stalled or
		// failed by err, so that the tests about per-host reads keep counting those exactly;
		// filter_test.go asserts the filter's own.
		k.mu.Lock()
		defer k.mu.Unlock()
		k.filterReads = append(k.filterReads, ttl)
		if k.filterErr != nil {
			return nil, false, k.filterErr
		}
		v, ok := k.data[key]
		return []byte(v), ok, nil
	}
	if k.gate != nil {
		<-k.gate
	}
	k.mu.Lock()
	stall := k.stall
	k.stall = nil
	k.mu.Unlock()
	if stall != nil {
		<-stall
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.reads = append(k.reads, key)
	k.ttls = append(k.ttls, ttl)
	if k.err != nil {
		return nil, false, k.err
	}
	v, ok := k.data[key]
	return []byte(v), ok, nil
}

func (k *fakeKV) count() int { k.mu.Lock(); defer k.mu.Unlock(); return len(k.reads) }

// fakeCache honours Cache-Control max-age against the injected clock, as the Cache API
// honours it against real time.
type fakeCache struct {
	mu       sync.Mutex
	clock    *fakeClock
	entries  map[string]cacheItem
	matchErr error
	putErr   error
	puts     int
	matches  int
	matched  []string // every key looked up, in order
}

type cacheItem struct {
	e   Entry
	exp time.Time
}

func (c *fakeCache) Match(key string) (Entry, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.matches++
	c.matched = append(c.matched, key)
	if c.matchErr != nil {
		return Entry{}, false, c.matchErr
	}
	it, ok := c.entries[key]
	if !ok || !c.clock.Now().Before(it.exp) {
		return Entry{}, false, nil
	}
	return it.e, true, nil
}

func (c *fakeCache) Put(key string, e Entry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	if c.putErr != nil {
		return c.putErr
	}
	c.store(key, e)
	return nil
}

func (c *fakeCache) store(key string, e Entry) {
	secs := 0
	if v, ok := strings.CutPrefix(e.Header.Get("Cache-Control"), "max-age="); ok {
		secs, _ = strconv.Atoi(v)
	} else if i := strings.Index(e.Header.Get("Cache-Control"), "max-age="); i >= 0 {
		secs, _ = strconv.Atoi(e.Header.Get("Cache-Control")[i+len("max-age="):])
	}
	if c.entries == nil {
		c.entries = map[string]cacheItem{}
	}
	c.entries[key] = cacheItem{e, c.clock.Now().Add(time.Duration(secs) * time.Second)}
}

// fakeObjects answers with the metadata R2's binding gives the adapter (size, ETag,
// upload time) and the whole body: ranges are cut from it by the adapter (Plan.Range).
type fakeObjects struct {
	mu    sync.Mutex
	data  map[string]string
	err   error
	reads []string
	// texts are the keys Text read (manifests), textErr fails every Text; with textGate
	// set, Text signals textEntered (when set), then waits for the gate.
	texts       []string
	textErr     error
	textEntered chan struct{}
	textGate    chan struct{}
}

// fakeModified is every fake object's upload time, as the adapter formats it.
const fakeModified = "Sun, 29 Nov 2026 11:00:00 GMT"

func fakeETag(key string) string { return `"e-` + key + `"` }

func (o *fakeObjects) Get(key string, withBody bool) (Object, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reads = append(o.reads, key)
	if o.err != nil {
		return Object{}, false, o.err
	}
	v, ok := o.data[key]
	if !ok {
		return Object{}, false, nil
	}
	obj := Object{Header: Header{{"Content-Type", "text/html"}, {"ETag", fakeETag(key)},
		{"Last-Modified", fakeModified}, {"Content-Length", strconv.Itoa(len(v))}}}
	if withBody {
		obj.Body = TextBody(v)
	}
	return obj, true, nil
}

func (o *fakeObjects) Text(key string, limit int64) (string, bool, error) {
	if o.textGate != nil {
		if o.textEntered != nil {
			o.textEntered <- struct{}{}
		}
		<-o.textGate
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.texts = append(o.texts, key)
	if o.textErr != nil {
		return "", false, o.textErr
	}
	v, ok := o.data[key]
	if !ok {
		return "", false, nil
	}
	if int64(len(v)) > limit {
		return "", false, errors.New("larger than " + strconv.FormatInt(limit, 10) + " bytes")
	}
	return v, true, nil
}

// counts are the object reads and manifest reads so far.
func (o *fakeObjects) counts() (objects, manifests int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.reads), len(o.texts)
}

type fakeLog struct {
	mu    sync.Mutex
	lines []string
	// filterLines are the edge.filter lines (a namespace without a usable name filter), kept
	// apart so that lines holds exactly one line per logged request.
	filterLines []string
}

func (l *fakeLog) Log(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if strings.HasPrefix(s, `{"msg":"edge.filter"`) {
		l.filterLines = append(l.filterLines, s)
		return
	}
	l.lines = append(l.lines, s)
}

func (l *fakeLog) last(t *testing.T) string {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == 0 {
		t.Fatal("no log line")
	}
	return l.lines[len(l.lines)-1]
}

type world struct {
	h       *Handler
	clock   *fakeClock
	routes  *fakeKV
	domains *fakeKV
	cache   *fakeCache
	objects *fakeObjects
	log     *fakeLog
}

func record(t testing.TB, r route.Record) string {
	b, _, err := route.EncodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mapping(t testing.TB, m route.DomainMapping) string {
	b, _, err := route.EncodeDomainMapping(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func dynamicRecord(app string) route.Record {
	return route.Record{App: app, Status: route.StatusActive, Kind: route.KindDynamic,
		Dynamic: &route.Dynamic{Origin: "tunnel.kamui.test", Upstream: "tenant-" + app + "/web:8080", TimeoutMS: 5000}}
}

func testConfig(t testing.TB) Config {
	ttls, err := route.DeriveTTLs(120 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return Config{PlatformDomain: testPlatform, TTLs: ttls, UpstreamTimeout: 30 * time.Second,
		LogSamplePerMillion: 1_000_000, SigningSecret: []byte(testSecret),
		ProbeKey: route.ProbeKey([]byte(testSecret)), CacheMarker: testMarker}
}

func newWorld(t testing.TB) *world {
	clock := &fakeClock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	prov := dynamicRecord("prov")
	prov.Status = route.StatusProvisioning
	w := &world{
		clock: clock,
		routes: &fakeKV{data: map[string]string{
			"shop": record(t, dynamicRecord("shop")),
			"prov": record(t, prov),
			"docs": record(t, route.Record{App: "docs", Status: route.StatusActive, Kind: route.KindStatic,
				Static: &route.Static{Prefix: "sites/docs/v1/", Index: "index.html", NotFound: "404.html"}}),
			"spa": record(t, route.Record{App: "spa", Status: route.StatusActive, Kind: route.KindStatic,
				Static: &route.Static{Prefix: "sites/spa/v1/", Index: "index.html", SPA: true}}),
			"broken": `{"v":1,"app":"broken"`,
			"future": `{"v":2,"app":"future","status":"active","kind":"dynamic","dynamic":{"origin":"tunnel.kamui.test","upstream":"a/b:1","timeout_ms":1000},"rev":"x"}`,
			"alias":  record(t, dynamicRecord("shop")), // a record stored under another app's key
		}},
		domains: &fakeKV{data: map[string]string{
			"www.shop.example": mapping(t, route.DomainMapping{App: "shop", Status: route.StatusActive}),
			"www.off.example":  mapping(t, route.DomainMapping{App: "shop", Status: route.StatusDisabled}),
			"www.docs.example": mapping(t, route.DomainMapping{App: "docs", Status: route.StatusActive}),
		}},
		cache: &fakeCache{clock: clock},
		objects: &fakeObjects{data: map[string]string{
			"sites/docs/v1/index.html":       "docs home",
			"sites/docs/v1/guide/start.html": "start",
			"sites/docs/v1/404.html":         "docs 404",
			"sites/spa/v1/index.html":        "spa index",
			"sites/docs/v1/data.txt":         dataBody,
		}},
		log: &fakeLog{},
	}
	// cas and casspa are docs and spa in the content-addressed layout, one version each.
	w.routes.data["cas"] = record(t, siteRecord("cas", putSite(t, w.objects.data, "sites/cas/", "v1", casFiles), "404.html", false))
	w.routes.data["casspa"] = record(t, siteRecord("casspa", putSite(t, w.objects.data, "sites/casspa/", "v1", map[string]siteContent{
		"index.html": {"text/html; charset=utf-8", "spa index"},
		"main.js":    {"text/javascript", "main()"},
	}), "", true))
	w.h = w.handler(t)
	return w
}

// dataBody is /data.txt of docs and cas, the object of the conditional/range matrix.
const dataBody = "0123456789abcdefghij"

// casFiles is version v1 of the cas site. Its types differ from the fake bucket's (which
// says text/html for everything): the manifest's are the ones served.
var casFiles = map[string]siteContent{
	"index.html":       {"text/html; charset=utf-8", "cas home"},
	"guide/start.html": {"text/html; charset=utf-8", "start"},
	"404.html":         {"text/html; charset=utf-8", "cas 404"},
	"data.txt":         {"text/plain; charset=utf-8", dataBody},
	// The same bytes as data.txt under another type: one object, two paths.
	"data.csv": {"text/csv", dataBody},
}

type siteContent struct{ typ, body string }

// objectOf is the object name (hash) of content.
func objectOf(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// putSite writes one version of a content-addressed site into objects as the provider
// does (each content once under objects/, then the manifest) and returns the manifest key.
func putSite(t testing.TB, objects map[string]string, prefix, version string, files map[string]siteContent) string {
	t.Helper()
	m := route.SiteManifest{Files: map[string]route.SiteFile{}}
	for p, c := range files {
		obj := objectOf(c.body)
		objects[route.SiteObjectKey(prefix, obj)] = c.body
		m.Files[p] = route.SiteFile{Object: obj, Type: c.typ, Size: int64(len(c.body))}
	}
	b, err := route.EncodeSiteManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	key := route.SiteManifestKey(prefix, version)
	objects[key] = string(b)
	return key
}

func siteRecord(app, manifest, notFound string, spa bool) route.Record {
	prefix := strings.TrimSuffix(manifest, "manifests/"+lastSegment(manifest))
	return route.Record{App: app, Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: prefix, Index: "index.html", NotFound: notFound, SPA: spa, Manifest: manifest}}
}

// handler returns a fresh Handler over the same KV, cache and objects: a new isolate
// (empty memo) in the same colo (shared Cache API).
func (w *world) handler(t testing.TB) *Handler {
	var n atomic.Int64 // tests serve from several goroutines
	return &Handler{Config: testConfig(t), Routes: w.routes, Domains: w.domains, Static: w.objects,
		Cache: w.cache, Clock: w.clock.Now, Log: w.log,
		NewRequestID: func() string { return "rid-" + strconv.FormatInt(n.Add(1), 10) }}
}

// serve is what the adapter does: Serve, then store the planned route entries. Like the
// adapter's, a put that fails is dropped: the entry is read again next time (tests with a
// failing cache count on that).
func (w *world) serve(h *Handler, req *Request) *Exchange {
	ex := h.Serve(req)
	w.storePuts(ex)
	return ex
}

// storePuts makes and stores the route entries ex planned, in place (tests read them from the
// plan afterwards), dropping failed puts as serve does.
func (w *world) storePuts(ex *Exchange) {
	for i := range ex.Plan.CachePuts {
		if p := &ex.Plan.CachePuts[i]; p.Make() {
			_ = w.cache.Put(p.Key, p.Entry)
		}
	}
}

func (w *world) kvReads() int { return w.routes.count() + w.domains.count() }

func get(host, path string) *Request {
	return &Request{Method: "GET", URL: "https://" + host + path, Header: Header{{"Accept", "*/*"}}}
}

// sent is the body the adapter sends for p: the part Range names, or all of it.
func sent(t *testing.T, p Plan) string {
	t.Helper()
	s := bodyText(t, p.Body)
	if r := p.Range; r != nil {
		if r.Offset+r.Length > int64(len(s)) {
			t.Fatalf("range %+v outside a body of %d bytes", *r, len(s))
		}
		s = s[r.Offset : r.Offset+r.Length]
	}
	return s
}

func bodyText(t *testing.T, b Body) string {
	t.Helper()
	if b == nil {
		return ""
	}
	s, err := b.Text()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var errBoom = errors.New("boom")

// discardLogger drops every line, after the core has encoded it (the benchmarks count that).
type discardLogger struct{}

func (discardLogger) Log(string) {}
