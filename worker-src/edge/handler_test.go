package edge

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// assertFixed checks the shape every response the Worker makes itself must have.
func assertFixed(t *testing.T, ex *Exchange, status int, notReflected ...string) {
	t.Helper()
	p := ex.Plan
	if p.Forward != nil {
		t.Fatalf("got a forward plan, want a fixed %d", status)
	}
	if p.Status != status {
		t.Fatalf("status = %d, want %d", p.Status, status)
	}
	if got := p.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
	if got := p.Header.Get("X-Request-Id"); got != ex.RequestID() || got == "" {
		t.Errorf("X-Request-Id = %q, want %q", got, ex.RequestID())
	}
	body := bodyText(t, p.Body)
	if !strings.Contains(body, ex.RequestID()) {
		t.Errorf("body %q lacks the request id", body)
	}
	for _, s := range notReflected {
		if strings.Contains(strings.ToLower(body), strings.ToLower(s)) {
			t.Errorf("body %q reflects %q", body, s)
		}
	}
	if p.Store != nil {
		t.Error("a fixed answer must never be stored")
	}
}

func logLineOf(t *testing.T, w *world) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(w.log.last(t)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlatformHostForwards(t *testing.T) {
	w := newWorld(t)
	req := get("Shop.Kamui.Test:443", "/cart?item=1")
	ex := w.serve(w.h, req)
	f := ex.Plan.Forward
	if f == nil {
		t.Fatalf("want a forward plan, got status %d", ex.Plan.Status)
	}
	if f.URL != "https://tunnel.kamui.test/cart?item=1" || f.Method != "GET" || f.Timeout != 5*time.Second {
		t.Errorf("forward = %+v", f)
	}
	if w.domains.count() != 0 || w.routes.count() != 1 {
		t.Errorf("platform host read DOMAINS %d and ROUTES %d times, want 0 and 1", w.domains.count(), w.routes.count())
	}
	c, err := route.VerifyHeaders(f.Header, "GET", "/cart?item=1", []byte(testSecret), w.clock.Now(), time.Second)
	if err != nil {
		t.Fatalf("signature: %v", err)
	}
	if c.Host != "shop.kamui.test" || c.App != "shop" || c.Upstream != "tenant-shop/web:8080" || c.RequestID != ex.RequestID() {
		t.Errorf("context = %+v", c)
	}
	if w.routes.ttls[0] != w.h.Config.TTLs.RoutesKV {
		t.Errorf("ROUTES cacheTtl = %v, want %v", w.routes.ttls[0], w.h.Config.TTLs.RoutesKV)
	}
}

// The Handler keys its signer once; a new secret (a test's new Config, never the Worker's)
// signs under the new secret from the next request on.
func TestForwardSignsUnderTheCurrentSecret(t *testing.T) {
	w := newWorld(t)
	for _, secret := range []string{testSecret, testSecret + "-rotated", testSecret} {
		w.h.Config.SigningSecret = []byte(secret)
		f := w.serve(w.h, get("shop.kamui.test", "/cart")).Plan.Forward
		if f == nil {
			t.Fatal("want a forward plan")
		}
		if _, err := route.VerifyHeaders(f.Header, "GET", "/cart", []byte(secret), w.clock.Now(), time.Second); err != nil {
			t.Errorf("under %q: %v", secret, err)
		}
	}
}

func TestCustomDomainReadsDomainsThenRoutes(t *testing.T) {
	w := newWorld(t)
	ex := w.serve(w.h, get("www.shop.example", "/"))
	if ex.Plan.Forward == nil {
		t.Fatalf("status %d", ex.Plan.Status)
	}
	if strings.Join(w.domains.reads, ",") != "www.shop.example" || strings.Join(w.routes.reads, ",") != "shop" {
		t.Errorf("reads: DOMAINS %v ROUTES %v", w.domains.reads, w.routes.reads)
	}
	if w.domains.ttls[0] != w.h.Config.TTLs.DomainsKV {
		t.Errorf("DOMAINS cacheTtl = %v", w.domains.ttls[0])
	}
	ex.UpstreamResponse(200, nil)
	// Three reads: DOMAINS' name filter (the isolate's first request; absent here), the
	// mapping, the record.
	if l := logLineOf(t, w); l["route_source"] != "kv" || l["kv_reads"] != 3.0 || l["host_kind"] != "custom" {
		t.Errorf("log %v", l)
	}
}

// The log line counts the sequential I/O rounds before the response starts (lookups side
// by side are one), as bench-edge reads them.
func TestLogLineCountsIORounds(t *testing.T) {
	w := newWorld(t)
	// Blocking: the content lookup and the route prefetch side by side, DOMAINS' name filter
	// (the isolate's first request), DOMAINS, ROUTES (the isolate knows of no entry of the
	// app's to look up first), then the upstream fetch.
	ex := w.serve(w.h, get("www.shop.example", "/"))
	ex.UpstreamResponse(200, nil)
	l := logLineOf(t, w)
	if l["io_rounds"] != 5.0 {
		t.Errorf("cold custom host: log %v, want io_rounds=5", l)
	}

	// As the adapter drives it: Decide names both lookups at once (one round), the adapter
	// answers them, Run reads KV.
	w = newWorld(t)
	ex = w.h.Begin(get("www.shop.example", "/"))
	if ex.Decide() {
		t.Fatal("a cold host decided without I/O")
	}
	content, routeKey := ex.Lookups()
	if content == "" || routeKey == "" {
		t.Fatalf("lookups %q %q, want both", content, routeKey)
	}
	ex.req.Content, ex.req.Route = &Lookup{}, &Lookup{}
	if ex.Decide() {
		t.Fatal("decided without the KV reads")
	}
	ex.Run()
	ex.UpstreamResponse(200, nil)
	l = logLineOf(t, w)
	if l["io_rounds"] != 5.0 || l["kv_reads"] != 3.0 {
		t.Errorf("adapter-driven cold custom host: log %v, want io_rounds=5 kv_reads=3 (the filter, the mapping, the record)", l)
	}
	w.storePuts(ex)

	// Memoized and known dynamic: the upstream fetch is the only wait.
	ex = w.h.Begin(get("www.shop.example", "/"))
	if !ex.Decide() || ex.Plan.Forward == nil {
		t.Fatal("a memoized dynamic host did not decide at once")
	}
	ex.UpstreamResponse(200, nil)
	l = logLineOf(t, w)
	if l["io_rounds"] != 1.0 || l["kv_reads"] != 0.0 {
		t.Errorf("memoized host: log %v, want io_rounds=1", l)
	}
}

func TestForwardHeadersReplaced(t *testing.T) {
	w := newWorld(t)
	req := get("shop.kamui.test", "/")
	req.Header = Header{
		{"Kamui-App", "admin"}, {"kamui-upstream", "kube-system/api:443"}, {"KAMUI-CONTEXT-SIGNATURE", "v1=00"},
		{"Kamui-Cache-Marker", testMarker}, {"X-Forwarded-For", "6.6.6.6"}, {"X-Forwarded-Host", "evil.example"},
		{"Forwarded", "for=6.6.6.6"}, {"X-Real-IP", "6.6.6.6"}, {"Host", "evil.example"}, {"X-Request-Id", "mine"},
		{"Connection", "keep-alive, X-Secret-Hop"}, {"X-Secret-Hop", "1"}, {"Keep-Alive", "timeout=5"},
		{"Transfer-Encoding", "chunked"}, {"TE", "trailers"}, {"Upgrade", "h2c"}, {"Proxy-Authorization", "x"},
		{"Cookie", "s=1"}, {"Authorization", "Bearer t"}, {"Accept", "text/html"},
	}
	f := w.serve(w.h, req).Plan.Forward
	want := map[string]string{
		"Kamui-App": "shop", "Kamui-Upstream": "tenant-shop/web:8080", "X-Forwarded-Host": "shop.kamui.test",
		"X-Forwarded-Proto": "https", "X-Request-Id": "rid-1", "Kamui-Request-Id": "rid-1",
		"Cookie": "s=1", "Authorization": "Bearer t", "Accept": "text/html",
	}
	for k, v := range want {
		if got := f.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	for _, k := range []string{"Kamui-Cache-Marker", "X-Forwarded-For", "Forwarded", "X-Real-IP", "Host",
		"Connection", "X-Secret-Hop", "Keep-Alive", "Transfer-Encoding", "TE", "Upgrade", "Proxy-Authorization"} {
		if f.Header.Has(k) {
			t.Errorf("%s was forwarded: %q", k, f.Header.Get(k))
		}
	}
	n := 0
	for _, fl := range f.Header {
		if strings.EqualFold(fl.Name, "Kamui-App") {
			n++
		}
	}
	if n != 1 || f.WebSocket {
		t.Errorf("Kamui-App appears %d times, WebSocket=%v", n, f.WebSocket)
	}
}

func TestWebSocketUpgradeKept(t *testing.T) {
	w := newWorld(t)
	req := get("shop.kamui.test", "/socket")
	req.Header = Header{{"Connection", "keep-alive, Upgrade"}, {"Upgrade", "websocket"}, {"Sec-WebSocket-Key", "k"}, {"Sec-WebSocket-Version", "13"}}
	ex := w.serve(w.h, req)
	f := ex.Plan.Forward
	if !f.WebSocket || f.Header.Get("Upgrade") != "websocket" || f.Header.Get("Connection") != "Upgrade" || f.Header.Get("Sec-WebSocket-Key") != "k" {
		t.Fatalf("forward = %+v", f)
	}
	e := ex.UpstreamResponse(101, Header{{"Upgrade", "websocket"}})
	if e.Apply(Header{}).Has("Cache-Control") {
		t.Error("a 101 got Cache-Control")
	}
}

func TestUpstreamResponseEdits(t *testing.T) {
	w := newWorld(t)
	ex := w.serve(w.h, get("shop.kamui.test", "/"))
	origin := Header{{"Set-Cookie", "a=1"}, {"Set-Cookie", "b=2"}, {"Kamui-Cache-Marker", testMarker},
		{"kamui-app", "x"}, {"Content-Type", "text/html"}}
	out := ex.UpstreamResponse(200, origin).Apply(origin)
	if out.Has("Kamui-Cache-Marker") || out.Has("Kamui-App") {
		t.Errorf("internal headers left: %v", out)
	}
	if out.Get("Cache-Control") != "private" || out.Get("X-Request-Id") != ex.RequestID() {
		t.Errorf("headers %v", out)
	}
	cookies := 0
	for _, f := range out {
		if f.Name == "Set-Cookie" {
			cookies++
		}
	}
	if cookies != 2 {
		t.Errorf("Set-Cookie count %d", cookies)
	}
	ex2 := w.serve(w.h, get("shop.kamui.test", "/"))
	kept := Header{{"Cache-Control", "public, max-age=60"}}
	if got := ex2.UpstreamResponse(200, kept).Apply(kept).Get("Cache-Control"); got != "public, max-age=60" {
		t.Errorf("origin Cache-Control replaced: %q", got)
	}
	l := logLineOf(t, w)
	if l["status"] != 200.0 || l["app"] != "shop" || l["delivery"] != "dynamic" {
		t.Errorf("log %v", l)
	}
}

func TestUpstreamFailures(t *testing.T) {
	w := newWorld(t)
	ex := w.serve(w.h, get("shop.kamui.test", "/x"))
	w.clock.Advance(5 * time.Second)
	assertFixed(t, &Exchange{Plan: ex.UpstreamFailed(true, ""), id: ex.id}, 504, "shop", "/x")
	if l := logLineOf(t, w); l["outcome"] != "upstream-timeout" || l["upstream_us"] != 5e6 {
		t.Errorf("log %v", l)
	}
	ex = w.serve(w.h, get("shop.kamui.test", "/x"))
	assertFixed(t, &Exchange{Plan: ex.UpstreamFailed(false, "refused"), id: ex.id}, 502, "shop", "/x")
}

func TestUpstreamTimeoutCeiling(t *testing.T) {
	w := newWorld(t)
	w.h.Config.UpstreamTimeout = 2 * time.Second
	if got := w.serve(w.h, get("shop.kamui.test", "/")).Plan.Forward.Timeout; got != 2*time.Second {
		t.Errorf("timeout = %v, want the 2s ceiling", got)
	}
}

func TestRouteCachePositive(t *testing.T) {
	w := newWorld(t)
	w.serve(w.h, get("www.shop.example", "/"))
	if w.kvReads() != 2 {
		t.Fatalf("first: %d reads", w.kvReads())
	}
	// Same isolate: memo.
	w.serve(w.h, get("www.shop.example", "/"))
	// Another isolate, same colo: route cache.
	other := w.handler(t)
	ex := w.serve(other, get("www.shop.example", "/"))
	if ex.Plan.Forward == nil || w.kvReads() != 2 {
		t.Fatalf("cached route: reads %d", w.kvReads())
	}
	if ex.line.RouteSource != "route-cache" || ex.line.RouteCache != "hit" {
		t.Errorf("route source %q / %q", ex.line.RouteSource, ex.line.RouteCache)
	}
	// Past the route-cache TTL (and the memo), KV is read again.
	w.clock.Advance(w.h.Config.TTLs.RouteCache)
	w.serve(w.handler(t), get("www.shop.example", "/"))
	if w.kvReads() != 4 {
		t.Errorf("after expiry: %d reads, want 4", w.kvReads())
	}
}

func TestMemoExpires(t *testing.T) {
	w := newWorld(t)
	w.cache.putErr = errBoom // no route cache: only the memo can save reads
	w.serve(w.h, get("shop.kamui.test", "/"))
	w.serve(w.h, get("shop.kamui.test", "/"))
	if w.kvReads() != 1 {
		t.Fatalf("memo: %d reads", w.kvReads())
	}
	w.clock.Advance(w.h.Config.TTLs.Memo)
	w.serve(w.h, get("shop.kamui.test", "/"))
	if w.kvReads() != 2 {
		t.Errorf("after memo TTL: %d reads", w.kvReads())
	}
}

func TestNegativeCache(t *testing.T) {
	w := newWorld(t)
	ex := w.serve(w.h, get("nowhere.example", "/<script>"))
	assertFixed(t, ex, 404, "nowhere", "script")
	if w.domains.count() != 1 || w.routes.count() != 0 {
		t.Fatalf("unknown custom host: DOMAINS %d ROUTES %d", w.domains.count(), w.routes.count())
	}
	other := w.handler(t)
	assertFixed(t, w.serve(other, get("nowhere.example", "/")), 404)
	if w.kvReads() != 1 {
		t.Errorf("negative cache missed: %d reads", w.kvReads())
	}
	w.clock.Advance(w.h.Config.TTLs.Negative)
	assertFixed(t, w.serve(w.handler(t), get("nowhere.example", "/")), 404)
	if w.kvReads() != 2 {
		t.Errorf("negative entry outlived its TTL: %d reads", w.kvReads())
	}
	// A platform host whose app has no record: also a confirmed absence.
	assertFixed(t, w.serve(w.h, get("ghost.kamui.test", "/")), 404, "ghost")
	assertFixed(t, w.serve(w.handler(t), get("ghost.kamui.test", "/")), 404)
	if w.routes.reads[len(w.routes.reads)-1] != "ghost" || w.routes.count() != 1 {
		t.Errorf("ROUTES reads %v", w.routes.reads)
	}
}

func TestReservedPlatformLabelNeedsNoRead(t *testing.T) {
	w := newWorld(t)
	assertFixed(t, w.serve(w.h, get("kamui-internal.kamui.test", "/route/v1/shop.kamui.test")), 404, "kamui-internal", "route")
	if w.kvReads() != 0 || w.cache.puts != 0 {
		t.Errorf("reserved label: %d reads, %d puts", w.kvReads(), w.cache.puts)
	}
}

func TestNeverCached(t *testing.T) {
	for _, tc := range []struct {
		name, host string
		status     int
		outcome    Outcome
	}{
		{"provisioning record", "prov.kamui.test", 503, OutcomeNotActive},
		{"disabled mapping", "www.off.example", 503, OutcomeNotActive},
		{"malformed record", "broken.kamui.test", 502, OutcomeBadRecord},
		{"unknown schema version", "future.kamui.test", 502, OutcomeBadRecord},
		{"record of another app", "alias.kamui.test", 502, OutcomeBadRecord},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for i := 1; i <= 2; i++ {
				ex := w.serve(w.h, get(tc.host, "/"))
				assertFixed(t, ex, tc.status, tc.host)
				if ex.line.Outcome != tc.outcome {
					t.Errorf("outcome %q", ex.line.Outcome)
				}
			}
			if w.cache.puts != 0 {
				t.Errorf("%d cache puts", w.cache.puts)
			}
			if w.kvReads() < 2 {
				t.Errorf("second request was served from a cache: %d reads", w.kvReads())
			}
		})
	}
}

func TestKVErrorNeverCached(t *testing.T) {
	w := newWorld(t)
	w.routes.err = errors.New("kv: 500 from the storage backend")
	ex := w.serve(w.h, get("shop.kamui.test", "/"))
	assertFixed(t, ex, 503, "storage")
	if ex.Plan.Header.Get("Retry-After") == "" || w.cache.puts != 0 {
		t.Errorf("Retry-After %q, puts %d", ex.Plan.Header.Get("Retry-After"), w.cache.puts)
	}
	l := logLineOf(t, w)
	if errText, _ := l["error"].(string); l["outcome"] != "kv-error" || !strings.Contains(errText, "ROUTES") {
		t.Errorf("log %v", l)
	}
	w.routes.err = nil
	if ex := w.serve(w.h, get("shop.kamui.test", "/")); ex.Plan.Forward == nil {
		t.Errorf("after recovery: status %d (an error was cached)", ex.Plan.Status)
	}
	w.domains.err = errBoom
	assertFixed(t, w.serve(w.h, get("www.docs.example", "/")), 503)
}

func TestCacheFailuresDegradeToKV(t *testing.T) {
	w := newWorld(t)
	w.cache.matchErr = errBoom
	w.cache.putErr = errBoom
	ex := w.serve(w.h, get("docs.kamui.test", "/"))
	if ex.Plan.Status != 200 || bodyText(t, ex.Plan.Body) != "docs home" {
		t.Fatalf("status %d", ex.Plan.Status)
	}
	if ex.line.ContentCache != "error" || !strings.HasPrefix(ex.line.RouteCache, "error") {
		t.Errorf("cache results %q %q", ex.line.ContentCache, ex.line.RouteCache)
	}
	if len(ex.Plan.CachePuts) != 1 {
		t.Errorf("route entry not planned for storing: %v", ex.Plan.CachePuts)
	}
	// With puts failing too, every request still resolves (through KV).
	if ex := w.serve(w.h, get("docs.kamui.test", "/guide/start.html")); ex.Plan.Status != 200 {
		t.Errorf("status %d", ex.Plan.Status)
	}
}

func TestContentCacheMarker(t *testing.T) {
	w := newWorld(t)
	key := "https://docs.kamui.test/guide/start.html"
	put := func(marker string) {
		h := Header{{"Content-Type", "text/html"}, {"Cache-Control", "public, max-age=60"}}
		if marker != "" {
			h.Set(route.CacheMarkerHeader, marker)
		}
		w.cache.store(key, Entry{Status: 200, Header: h, Body: TextBody("cached copy")})
	}
	// Present: served before routing, no KV, marker removed.
	put(testMarker)
	ex := w.serve(w.h, get("docs.kamui.test", "/guide/start.html"))
	if bodyText(t, ex.Plan.Body) != "cached copy" || w.kvReads() != 0 || ex.Plan.Header.Has(route.CacheMarkerHeader) {
		t.Fatalf("marked hit: body %q reads %d header %v", bodyText(t, ex.Plan.Body), w.kvReads(), ex.Plan.Header)
	}
	if ex.Plan.Header.Get("X-Request-Id") != ex.RequestID() || ex.Plan.Header.Get("Cache-Control") != clientStaticCacheControl {
		t.Errorf("hit headers %v", ex.Plan.Header)
	}
	// Absent and forged: routed as if nothing were cached.
	for _, marker := range []string{"", "forged-marker-value-000", testMarker + "x"} {
		put(marker)
		ex := w.serve(w.h, get("docs.kamui.test", "/guide/start.html"))
		if bodyText(t, ex.Plan.Body) != "start" || ex.line.ContentCache != "unmarked" {
			t.Errorf("marker %q: body %q result %q", marker, bodyText(t, ex.Plan.Body), ex.line.ContentCache)
		}
	}
	// Non-GET requests skip the content cache.
	post := get("docs.kamui.test", "/guide/start.html")
	post.Method = "POST"
	if ex := w.serve(w.h, post); ex.line.ContentCache != "skip" || ex.Plan.Status != 405 {
		t.Errorf("POST: %q %d", ex.line.ContentCache, ex.Plan.Status)
	}
}

func TestForgedRouteCacheEntryIgnored(t *testing.T) {
	w := newWorld(t)
	// Someone else's entry under the route key, pointing shop at a hostile origin.
	evil := dynamicRecord("shop")
	evil.Dynamic.Origin = "evil.example"
	entry, _ := json.Marshal(cachedRoute{V: routeEntryVersion, Host: "shop.kamui.test", App: "shop",
		Record: json.RawMessage(record(t, evil)), Exp: w.clock.Now().Add(time.Hour).UnixMilli()})
	w.cache.store(route.RouteCacheKey(testPlatform, "shop.kamui.test"), Entry{Status: 200,
		Header: Header{{routeEntryHeader, base64.RawURLEncoding.EncodeToString(entry)},
			{"Cache-Control", "max-age=600"}, {route.CacheMarkerHeader, "guessed-marker-0000"}}, Body: TextBody("")})
	ex := w.serve(w.h, get("shop.kamui.test", "/"))
	if ex.Plan.Forward == nil || !strings.HasPrefix(ex.Plan.Forward.URL, "https://tunnel.kamui.test/") {
		t.Fatalf("forged route entry used: %+v", ex.Plan.Forward)
	}
	if ex.line.RouteCache != "unmarked" {
		t.Errorf("route cache result %q", ex.line.RouteCache)
	}
}

// An entry in the first format (the JSON in the body) reads as invalid: a miss that reads KV
// and overwrites it, never a misread route.
func TestRouteCacheEntryOfOtherVersionIsAMiss(t *testing.T) {
	w := newWorld(t)
	key := route.RouteCacheKey(testPlatform, "shop.kamui.test")
	body, _ := json.Marshal(cachedRoute{V: 1, Host: "shop.kamui.test", App: "shop",
		Record: json.RawMessage(record(t, dynamicRecord("shop"))), Exp: w.clock.Now().Add(time.Hour).UnixMilli()})
	w.cache.store(key, Entry{Status: 200, Body: TextBody(body),
		Header: Header{{"Content-Type", "application/json"}, {"Cache-Control", "max-age=600"}, {route.CacheMarkerHeader, testMarker}}})
	req := get("shop.kamui.test", "/api")
	req.Method = "POST"
	ex := w.serve(w.h, req)
	if ex.line.RouteCache != "invalid" || ex.line.RouteSource != "kv" || ex.Plan.Forward == nil {
		t.Fatalf("old entry: route cache %q source %q forward %v", ex.line.RouteCache, ex.line.RouteSource, ex.Plan.Forward != nil)
	}
	var put *CachePut
	for i := range ex.Plan.CachePuts {
		if ex.Plan.CachePuts[i].Key == key {
			put = &ex.Plan.CachePuts[i]
		}
	}
	if put == nil || put.Entry.Header.Get(routeEntryHeader) == "" || bodyText(t, put.Entry.Body) != "" {
		t.Fatalf("the old entry is not overwritten in the current format: %+v", put)
	}
}

func TestStatic(t *testing.T) {
	w := newWorld(t)
	ex := w.serve(w.h, get("www.docs.example", "/"))
	p := ex.Plan
	if p.Status != 200 || bodyText(t, p.Body) != "docs home" || p.Header.Get("Content-Type") != "text/html" {
		t.Fatalf("index: %d %v", p.Status, p.Header)
	}
	if p.Header.Has(route.CacheMarkerHeader) || p.Header.Get("X-Request-Id") != ex.RequestID() {
		t.Errorf("client headers %v", p.Header)
	}
	if p.Store == nil || p.Store.Key != "https://www.docs.example/" || p.Store.Header.Get(route.CacheMarkerHeader) != testMarker {
		t.Fatalf("store %+v", p.Store)
	}
	if p.Store.Header.Has("X-Request-Id") {
		t.Error("a stored entry carries a request id")
	}
	// not_found page with its 404 status, never stored.
	nf := w.serve(w.h, get("docs.kamui.test", "/missing")).Plan
	if nf.Status != 404 || bodyText(t, nf.Body) != "docs 404" || nf.Store != nil {
		t.Errorf("not_found: %d %q store %v", nf.Status, bodyText(t, nf.Body), nf.Store)
	}
	// SPA: extension-less paths get the index; assets do not.
	spa := w.serve(w.h, get("spa.kamui.test", "/app/settings")).Plan
	if spa.Status != 200 || bodyText(t, spa.Body) != "spa index" {
		t.Errorf("spa: %d", spa.Status)
	}
	if p := w.serve(w.h, get("spa.kamui.test", "/app/settings/")).Plan; p.Status != 200 || bodyText(t, p.Body) != "spa index" {
		t.Errorf("spa route with a trailing slash: %d", p.Status)
	}
	assertFixed(t, w.serve(w.h, get("spa.kamui.test", "/main.js")), 404, "main.js")
	// Traversal never reaches the bucket outside the prefix.
	before := len(w.objects.reads)
	w.serve(w.h, get("docs.kamui.test", "/%2e%2e/secret"))
	w.serve(w.h, get("docs.kamui.test", "/a//b"))
	for _, k := range w.objects.reads[before:] {
		if !strings.HasPrefix(k, "sites/docs/v1/") || strings.Contains(k, "..") {
			t.Errorf("object read %q", k)
		}
	}
	// HEAD: no body, nothing stored.
	head := get("docs.kamui.test", "/guide/start.html")
	head.Method = "HEAD"
	hp := w.serve(w.h, head).Plan
	if hp.Status != 200 || hp.Body != nil || hp.Store != nil {
		t.Errorf("HEAD: %d body %v store %v", hp.Status, hp.Body, hp.Store)
	}
	// The layout by prefix has no manifest to read.
	if _, manifests := w.objects.counts(); manifests != 0 {
		t.Errorf("%d manifest reads for sites without a manifest", manifests)
	}
	// The static origin failing is a 502, not a 404.
	w.objects.err = errBoom
	assertFixed(t, w.serve(w.h, get("docs.kamui.test", "/other.html")), 502)
}

func TestContentTTLWithinBudget(t *testing.T) {
	w := newWorld(t)
	tt := w.h.Config.TTLs
	ex := w.serve(w.h, get("docs.kamui.test", "/"))
	full := tt.Budget - max(tt.DomainsKV, tt.RoutesKV)
	if got := ex.Plan.Store.Header.Get("Cache-Control"); got != "public, max-age="+itoa(int(full/time.Second)) {
		t.Errorf("fresh route: stored Cache-Control %q, want max-age=%d", got, int(full/time.Second))
	}
	// The route was read 20 s ago (memo / route cache): the content entry gets 20 s less.
	w.clock.Advance(20 * time.Second)
	ex = w.serve(w.handler(t), get("docs.kamui.test", "/guide/start.html"))
	if got := ex.Plan.Store.Header.Get("Cache-Control"); got != "public, max-age="+itoa(int((full-20*time.Second)/time.Second)) {
		t.Errorf("aged route: stored Cache-Control %q", got)
	}
	// Route data as old as the whole remaining budget: nothing is stored.
	w.clock.Advance(full - 20*time.Second)
	if ttl := w.h.contentTTL(w.clock.Now().Add(-full)); ttl != 0 {
		t.Errorf("contentTTL at the budget edge = %v", ttl)
	}
	// Route cache + KV cache + content entry never exceed the budget.
	for age := time.Duration(0); age <= tt.Memo+tt.RouteCache; age += time.Second {
		if total := age + max(tt.DomainsKV, tt.RoutesKV) + w.h.contentTTL(w.clock.Now().Add(-age)); total > tt.Budget {
			t.Fatalf("age %v: worst case %v exceeds budget %v", age, total, tt.Budget)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestBadHost(t *testing.T) {
	w := newWorld(t)
	for _, h := range []string{"-evil-.example", "203.0.113.7", "[::1]", "a_b.example", "x.example:99999", ""} {
		ex := w.serve(w.h, &Request{Method: "GET", URL: "https://" + h + "/<b>", Header: nil})
		assertFixed(t, ex, 400, "evil", "203.0", "a_b", "<b>")
		if ex.line.Host != "" {
			t.Errorf("bad host logged: %q", ex.line.Host)
		}
	}
	if w.kvReads() != 0 {
		t.Errorf("bad hosts read KV %d times", w.kvReads())
	}
}

func TestBadConfigFailsClosed(t *testing.T) {
	w := newWorld(t)
	_, err := ParseConfig(func(string) (string, bool) { return "", false })
	w.h.ConfigErr = err
	ex := w.serve(w.h, get("shop.kamui.test", "/"))
	assertFixed(t, ex, 500, "shop")
	if w.kvReads() != 0 {
		t.Error("a misconfigured Worker read KV")
	}
	l := logLineOf(t, w)
	errText, _ := l["error"].(string) // none is an empty text, which names no binding
	for _, b := range []string{BindingPlatformDomain, BindingSigningSecret, BindingCacheMarker, BindingFreshness} {
		if !strings.Contains(errText, b) {
			t.Errorf("log error %q does not name %s", l["error"], b)
		}
	}
}

func TestSingleFlight(t *testing.T) {
	w := newWorld(t)
	w.routes.gate = make(chan struct{})
	var wg sync.WaitGroup
	exs := make([]*Exchange, 8)
	for i := range exs {
		wg.Add(1)
		go func() { defer wg.Done(); exs[i] = w.serve(w.h, get("shop.kamui.test", "/")) }()
	}
	// Let the leader's read through once the others had the chance to queue behind it.
	time.Sleep(20 * time.Millisecond)
	close(w.routes.gate)
	wg.Wait()
	for _, ex := range exs {
		if ex.Plan.Forward == nil {
			t.Fatalf("status %d", ex.Plan.Status)
		}
	}
	if w.kvReads() != 1 {
		t.Errorf("8 concurrent cold requests read KV %d times, want 1", w.kvReads())
	}
}

func TestLogSamplingAndPrivacy(t *testing.T) {
	w := newWorld(t)
	w.h.Config.LogSamplePerMillion = 0
	ex := w.serve(w.h, get("docs.kamui.test", "/?token=secret"))
	if ex.Plan.Status != 200 || len(w.log.lines) != 0 {
		t.Errorf("success line logged at rate 0: %v", w.log.lines)
	}
	assertFixed(t, w.serve(w.h, get("nowhere.example", "/")), 404)
	if len(w.log.lines) != 1 {
		t.Fatalf("error lines must always be logged: %d", len(w.log.lines))
	}
	w.h.Config.LogSamplePerMillion = 1_000_000
	req := get("shop.kamui.test", "/account?token=secret")
	req.Header = Header{{"Cookie", "session=s3cr3t"}, {"Authorization", "Bearer t0ken"}}
	ex = w.serve(w.h, req)
	ex.UpstreamResponse(200, nil)
	line := w.log.last(t)
	for _, s := range []string{"secret", "s3cr3t", "t0ken", "/account", testSecret, testMarker} {
		if strings.Contains(line, s) {
			t.Errorf("log line contains %q: %s", s, line)
		}
	}
	n := 0
	for i := 0; i < 1000; i++ {
		if sampled("rid-"+itoa(i), 250_000) {
			n++
		}
	}
	if n < 150 || n > 350 {
		t.Errorf("25%% sampling kept %d of 1000", n)
	}
}

func TestContentLookupSkippedForMemoizedDynamicHost(t *testing.T) {
	w := newWorld(t)
	key := "https://shop.kamui.test/page"
	w.cache.store(key, Entry{Status: 200, Header: Header{{"Cache-Control", "max-age=60"}, {route.CacheMarkerHeader, testMarker}}, Body: TextBody("stale static copy")})
	// Cold: the content lookup runs first (and, here, hits a stale marked entry).
	if ex := w.serve(w.h, get("shop.kamui.test", "/page")); ex.line.ContentCache != "hit" {
		t.Fatalf("cold request: content cache %q", ex.line.ContentCache)
	}
	w.serve(w.h, get("shop.kamui.test", "/other"))
	ex := w.serve(w.h, get("shop.kamui.test", "/page"))
	if ex.line.ContentCache != "skip-dynamic" || ex.Plan.Forward == nil || ex.line.RouteSource != "memo" {
		t.Errorf("memoized dynamic host: content %q, source %q", ex.line.ContentCache, ex.line.RouteSource)
	}
	// A memoized static host still consults the content cache.
	w.serve(w.h, get("docs.kamui.test", "/"))
	if ex := w.serve(w.h, get("docs.kamui.test", "/guide/start.html")); ex.line.ContentCache != "miss" {
		t.Errorf("static host: content cache %q", ex.line.ContentCache)
	}
}

// A memo entry that has expired still says the host was dynamic: the next request skips the
// content lookup and re-resolves (here from the route cache). A host that turned static since
// is served from its origin, then memoized as static, and looks up content again.
func TestExpiredMemoStillSkipsContentLookup(t *testing.T) {
	w := newWorld(t)
	w.serve(w.h, get("shop.kamui.test", "/a"))
	w.clock.Advance(w.h.Config.TTLs.Memo + time.Second)
	ex := w.serve(w.h, get("shop.kamui.test", "/b"))
	if ex.line.ContentCache != "skip-dynamic" || ex.line.RouteSource != "route-cache" || ex.Plan.Forward == nil {
		t.Fatalf("expired memo: content %q, source %q", ex.line.ContentCache, ex.line.RouteSource)
	}

	// shop turns static; once the memo and the route cache have expired, KV says so.
	w.routes.data["shop"] = record(t, route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: "sites/docs/v1/", Index: "index.html"}})
	w.clock.Advance(w.h.Config.TTLs.RouteCache + time.Second)
	ex = w.serve(w.h, get("shop.kamui.test", "/"))
	if ex.line.ContentCache != "skip-dynamic" || ex.line.RouteSource != "kv" || bodyText(t, ex.Plan.Body) != "docs home" {
		t.Fatalf("turned static: content %q, source %q", ex.line.ContentCache, ex.line.RouteSource)
	}
	if ex := w.serve(w.h, get("shop.kamui.test", "/guide/start.html")); ex.line.ContentCache != "miss" || ex.line.RouteSource != "memo" {
		t.Errorf("after the change: content %q, source %q", ex.line.ContentCache, ex.line.RouteSource)
	}
}

func TestPrefetchedRouteEntryUsed(t *testing.T) {
	w := newWorld(t)
	w.serve(w.h, get("www.docs.example", "/"))
	other := w.handler(t)
	ex := w.serve(other, get("www.docs.example", "/guide/start.html"))
	if ex.line.ContentCache != "miss" || ex.line.RouteCache != "hit" || w.kvReads() != 2 || ex.prefetch != nil {
		t.Errorf("content %q route %q reads %d", ex.line.ContentCache, ex.line.RouteCache, w.kvReads())
	}
	// A content hit with a prefetch in flight still waits for it (nothing left behind).
	w.cache.store("https://www.docs.example/x", Entry{Status: 200, Header: Header{{"Cache-Control", "max-age=60"}, {route.CacheMarkerHeader, testMarker}}, Body: TextBody("x")})
	if ex := w.serve(w.handler(t), get("www.docs.example", "/x")); ex.line.ContentCache != "hit" || ex.prefetch != nil {
		t.Errorf("content hit: %q", ex.line.ContentCache)
	}
}

// TestStartMatchCarriesEveryLookupStartedAhead runs the prefetch and the early app lookup
// through the StartMatch hook, as the wasm adapter does, and checks that each lookup started
// ahead is waited for exactly once, on the request's own goroutine, before the request ends.
func TestStartMatchCarriesEveryLookupStartedAhead(t *testing.T) {
	w := newWorld(t)
	w.serve(w.h, get("www.docs.example", "/"))
	var started, waited []string
	hooked := func() *Handler {
		h := w.handler(t)
		h.StartMatch = func(key string) func() (Entry, bool, error) {
			started = append(started, key)
			return func() (Entry, bool, error) {
				waited = append(waited, key)
				return w.cache.Match(key)
			}
		}
		return h
	}
	other := hooked()
	ex := w.serve(other, get("www.docs.example", "/guide/start.html"))
	want := []string{route.RouteCacheKey("kamui.test", "www.docs.example")}
	if ex.line.RouteCache != "hit" || !slices.Equal(started, want) || !slices.Equal(waited, want) {
		t.Fatalf("route cache %q, started %q, waited %q; want one prefetch of %q", ex.line.RouteCache, started, waited, want)
	}

	// A content hit leaves its prefetch unused, and the request still waits for it.
	started, waited = nil, nil
	w.cache.store("https://www.docs.example/x", Entry{Status: 200, Header: Header{{"Cache-Control", "max-age=60"}, {route.CacheMarkerHeader, testMarker}}, Body: TextBody("x")})
	if ex := w.serve(hooked(), get("www.docs.example", "/x")); ex.line.ContentCache != "hit" || len(started) != 1 || !slices.Equal(started, waited) {
		t.Errorf("content hit: %q, started %q, waited %q", ex.line.ContentCache, started, waited)
	}

	// A custom host this isolate resolved before: its app's entry is looked up beside the
	// mapping's read (earlyAppLookup), through the hook too.
	h := hooked()
	upstreamOf(t, w.serve(h, get("www.shop.example", "/")))
	w.cache.mu.Lock()
	delete(w.cache.entries, route.RouteCacheKey(testPlatform, "www.shop.example"))
	w.cache.mu.Unlock()
	w.clock.Advance(h.Config.TTLs.Memo + time.Second)
	started, waited = nil, nil
	upstreamOf(t, w.serve(h, get("www.shop.example", "/")))
	want = []string{route.RouteCacheKey(testPlatform, "shop.kamui.test")}
	if !slices.Equal(started, want) || !slices.Equal(waited, want) {
		t.Errorf("hinted custom host: started %q, waited %q; want the app's entry %q once", started, waited, want)
	}
}

func TestStuckLeaderDoesNotHoldOthers(t *testing.T) {
	w := newWorld(t)
	stall := make(chan struct{})
	defer close(stall)
	w.routes.stall = stall
	go w.h.Serve(get("shop.kamui.test", "/")) // the leader: its KV read never returns
	for {
		w.h.mu.Lock()
		_, inFlight := w.h.flights["shop.kamui.test"]
		w.h.mu.Unlock()
		if inFlight {
			break
		}
		time.Sleep(time.Millisecond)
	}
	waited := 0
	w.h.WaitShared = func(<-chan struct{}) { waited++ } // gives up at once
	ex := w.h.Serve(get("shop.kamui.test", "/"))
	if waited != 1 || ex.Plan.Forward == nil || ex.line.RouteSource != "kv" {
		t.Fatalf("follower: waited %d, source %q, status %d", waited, ex.line.RouteSource, ex.Plan.Status)
	}
	// Once the flight is older than the timeout, nobody waits for it any more.
	w.clock.Advance(flightTimeout)
	w.h.Config.TTLs.Memo = 0
	w.h.memo = nil
	if ex := w.h.Serve(get("shop.kamui.test", "/")); ex.Plan.Forward == nil || waited != 1 {
		t.Errorf("after the flight timeout: waited %d, status %d", waited, ex.Plan.Status)
	}
}

// TestRouteEntriesAreNeverPublic: the route cache lives under a reserved platform host, and a
// GET of an entry's own URL used to be looked up as content, match (same marker) and answer
// 200 with an Age, telling an outsider whether and when a host was resolved. Reserved and
// internal hosts are refused before any cache lookup, and a content lookup never accepts a
// route entry wherever it is stored.
func TestRouteEntriesAreNeverPublic(t *testing.T) {
	w := newWorld(t)
	ex := w.serve(w.h, get("www.shop.example", "/"))
	// Two puts: the record under its app's key (the platform host's), then the host's entry.
	if len(ex.Plan.CachePuts) != 2 || ex.Plan.CachePuts[0].Key != route.RouteCacheKey(testPlatform, "shop."+testPlatform) ||
		ex.Plan.CachePuts[1].Key != route.RouteCacheKey(testPlatform, "www.shop.example") {
		t.Fatalf("resolving a custom host planned the route-cache puts %+v", ex.Plan.CachePuts)
	}
	put := ex.Plan.CachePuts[1]

	// The entry's own URL, and other hosts no app can be served at.
	matches := w.matches()
	for _, url := range []string{put.Key, "https://www.kamui.test/", "https://api.kamui.test/x", "https://a.b.kamui.test/"} {
		host, path, _ := strings.Cut(strings.TrimPrefix(url, "https://"), "/")
		for _, method := range []string{"GET", "HEAD"} {
			req := get(host, "/"+path)
			req.Method = method
			ex := w.serve(w.h, req)
			if ex.Plan.Status != 404 || ex.Plan.Forward != nil || ex.Plan.Header.Has("Age") || ex.line.ContentCache != "skip" {
				t.Errorf("%s %s: status %d, content cache %q, headers %v: want the fixed 404 without a lookup",
					method, url, ex.Plan.Status, ex.line.ContentCache, ex.Plan.Header)
			}
		}
	}
	if got := w.matches() - matches; got != 0 {
		t.Errorf("%d cache lookups for hosts that can never be served", got)
	}

	// The same entry under a public content key: routed and served from the origin.
	w.cache.store("https://docs.kamui.test/guide/start.html", put.Entry)
	ex = w.serve(w.h, get("docs.kamui.test", "/guide/start.html"))
	if bodyText(t, ex.Plan.Body) != "start" || ex.line.ContentCache != "route-entry" {
		t.Fatalf("a route entry under a content key: body %q, content cache %q", bodyText(t, ex.Plan.Body), ex.line.ContentCache)
	}
}

// TestUnderscoreHeadersDropped: CGI-style stacks read X_Forwarded_Host as X-Forwarded-Host,
// so underscore spellings of reserved names never reach the upstream (nginx's default).
func TestUnderscoreHeadersDropped(t *testing.T) {
	w := newWorld(t)
	req := get("shop.kamui.test", "/")
	req.Header = Header{{"X_Forwarded_Host", "evil.example"}, {"X_Forwarded_For", "6.6.6.6"},
		{"X_Real_IP", "6.6.6.6"}, {"Kamui_App", "admin"}, {"x_request_id", "mine"}, {"Accept", "text/html"}}
	f := w.serve(w.h, req).Plan.Forward
	if f == nil {
		t.Fatal("not forwarded")
	}
	for _, h := range f.Header {
		if strings.Contains(h.Name, "_") {
			t.Errorf("%s: %q reached the upstream", h.Name, h.Value)
		}
	}
	if f.Header.Get("Accept") != "text/html" || f.Header.Get("X-Forwarded-Host") != "shop.kamui.test" {
		t.Errorf("forwarded headers %v", f.Header)
	}
}

// Unlocked sees each of the Handler's locks held (what the adapter checks after a recovered
// panic), and leaves every lock as it found it.
func TestUnlocked(t *testing.T) {
	h := newWorld(t).handler(t)
	for name, m := range map[string]*sync.Mutex{"mu": &h.mu, "signMu": &h.signMu, "decoded.mu": &h.decoded.mu} {
		if !h.Unlocked() {
			t.Fatalf("before %s: a lock is held", name)
		}
		m.Lock()
		if h.Unlocked() {
			t.Errorf("%s held: Unlocked says none is", name)
		}
		m.Unlock()
	}
	if !h.Unlocked() {
		t.Error("after: a lock is held")
	}
}
