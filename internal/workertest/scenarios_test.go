package workertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var client = &http.Client{
	Timeout:       20 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

type result struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, method, hostName, path string, hdr map[string]string, body string) result {
	t.Helper()
	r, err := tryDo(method, hostName, path, hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tryDo is do for a goroutine of a test's own, which must not end the test: a failed
// request is its error.
func tryDo(method, hostName, path string, hdr map[string]string, body string) (result, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, edgeURL+path, rd)
	if err != nil {
		return result{}, err
	}
	req.Host = hostName
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return result{}, fmt.Errorf("%s %s%s: %w", method, hostName, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return result{resp.StatusCode, resp.Header, string(b)}, nil
}

// logOf returns the structured log line of a request to the shared host, by its id.
func logOf(t *testing.T, id string) map[string]any {
	t.Helper()
	return requestLog(t, host, id)
}

// countsOf is what h's runtime wrappers have counted so far (binding reads, Cache API calls).
func countsOf(t *testing.T, h *Host) Counts {
	t.Helper()
	c, err := h.Counts(client)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// requestLog returns the structured log line of a request to h, by its id.
func requestLog(t *testing.T, h *Host, id string) map[string]any {
	t.Helper()
	if id == "" {
		t.Fatal("response has no X-Request-Id")
	}
	line, ok := h.WaitLog(func(l string) bool {
		// The request's own line, not an edge.filter line the same request may have logged.
		return strings.Contains(l, `"request_id":"`+id+`"`) && strings.Contains(l, `"msg":"edge.request"`)
	}, 5*time.Second)
	if !ok {
		t.Fatalf("no log line for request %s", id)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("log line is not JSON: %v", err)
	}
	return m
}

// getRoot requests host's "/" from h, reads the body through, and returns the status and the
// request's log line.
func getRoot(t *testing.T, h *Host, host string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", h.URL+"/", nil)
	req.Host = host
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, requestLog(t, h, resp.Header.Get("X-Request-Id"))
}

func kvReads(t *testing.T, id string) int {
	t.Helper()
	l := logOf(t, id)
	n, ok := l["kv_reads"].(float64)
	if !ok {
		t.Fatalf("the log line has no kv_reads count: %v", l)
	}
	return int(n)
}

func wrapperReads(t *testing.T) int {
	t.Helper()
	r := do(t, "GET", "kv-stats.host.invalid", "/", nil, "")
	var v struct{ Reads int }
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("kv stats: %v (%q)", err, r.body)
	}
	return v.Reads
}

func assertFixed(t *testing.T, r result, status int, mustNotContain ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d (body %q)", r.status, status, r.body)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", cc)
	}
	id := r.header.Get("X-Request-Id")
	if id == "" || !strings.Contains(r.body, id) {
		t.Errorf("request id %q missing from header or body %q", id, r.body)
	}
	for _, s := range mustNotContain {
		if strings.Contains(strings.ToLower(r.body), strings.ToLower(s)) {
			t.Errorf("body %q reflects %q", r.body, s)
		}
	}
}

func echoed(t *testing.T, r result) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("origin echo: %v (status %d, body %q)", err, r.status, r.body)
	}
	return m
}

func TestPlatformHostDynamic(t *testing.T) {
	r := do(t, "GET", "shop.kamui.test", "/cart?item=1", map[string]string{
		"Kamui-App":               "evil",
		"Kamui-Upstream":          "kube-system/api:443",
		"Kamui-Cache-Marker":      testMarker,
		"X-Forwarded-For":         "6.6.6.6",
		"X-Forwarded-Host":        "evil.example",
		"Forwarded":               "for=6.6.6.6",
		"Cookie":                  "session=abc",
		"Authorization":           "Bearer secret-token",
		"Connection":              "keep-alive, X-Hop",
		"X-Hop":                   "drop-me",
		"X-Request-Id":            "client-chosen",
		"Kamui-Context-Signature": "v1=00",
	}, "")
	if r.status != 200 {
		t.Fatalf("status %d body %q", r.status, r.body)
	}
	seen := echoed(t, r)
	id := r.header.Get("X-Request-Id")
	checks := map[string]string{
		"path": "/cart", "query": "item=1",
		"h:kamui-app": "shop", "h:kamui-upstream": "tenant-shop/web:8080",
		"h:kamui-request-id": id, "h:x-request-id": id,
		"h:x-forwarded-host": "shop.kamui.test", "h:x-forwarded-proto": "https",
		"h:cookie": "session=abc", "h:authorization": "Bearer secret-token",
	}
	for k, want := range checks {
		if seen[k] != want {
			t.Errorf("upstream saw %s = %q, want %q", k, seen[k], want)
		}
	}
	for _, k := range []string{"h:kamui-cache-marker", "h:x-forwarded-for", "h:forwarded", "h:x-hop"} {
		if v, ok := seen[k]; ok {
			t.Errorf("upstream saw client header %s = %q", k, v)
		}
	}
	// The signature verifies for exactly what the edge resolved.
	h := http.Header{}
	for k, v := range seen {
		if name, ok := strings.CutPrefix(k, "h:"); ok {
			h.Set(name, v)
		}
	}
	if _, err := route.VerifyHeaders(h, "GET", "/cart?item=1", []byte(testSecret), time.Now(), time.Minute); err != nil {
		t.Errorf("context signature does not verify: %v", err)
	}
	// Response post-processing: internal headers gone, private added, cookies intact.
	if v := r.header.Get(route.CacheMarkerHeader); v != "" {
		t.Errorf("marker from origin leaked: %q", v)
	}
	if v := r.header.Get("Kamui-App"); v != "" {
		t.Errorf("Kamui-App from origin leaked: %q", v)
	}
	if cc := r.header.Get("Cache-Control"); cc != "private" {
		t.Errorf("Cache-Control = %q, want private", cc)
	}
	if c := r.header.Values("Set-Cookie"); len(c) != 2 {
		t.Errorf("Set-Cookie = %q, want both cookies", c)
	}
	l := logOf(t, id)
	if l["app"] != "shop" || l["status"] != 200.0 || l["host_kind"] != "platform" {
		t.Errorf("log line %v", l)
	}
	raw, _ := json.Marshal(l)
	for _, secret := range []string{"session=abc", "secret-token", "item=1", "/cart"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("log line contains %q: %s", secret, raw)
		}
	}
}

// TestLargeMessagesCrossTheAdapter: a request and a plan far larger than any before them
// cross between worker.mjs and Go intact (the adapter's buffers in Go's memory grow, and the
// memory with them, between two small requests), and the Worker keeps serving after it.
func TestLargeMessagesCrossTheAdapter(t *testing.T) {
	small := do(t, "GET", "shop.kamui.test", "/before", nil, "")
	if small.status != 200 {
		t.Fatalf("a small request first: status %d body %q", small.status, small.body)
	}
	hdr := map[string]string{}
	for i := range 48 {
		hdr[fmt.Sprintf("X-Large-%02d", i)] = strings.Repeat(string(rune('a'+i%26)), 2000) + fmt.Sprintf("-%02d", i)
	}
	r := do(t, "GET", "shop.kamui.test", "/large", hdr, "")
	if r.status != 200 {
		t.Fatalf("96 KB of request headers: status %d body %q", r.status, r.body)
	}
	seen := echoed(t, r)
	for name, want := range hdr {
		if got := seen["h:"+strings.ToLower(name)]; got != want {
			t.Fatalf("upstream saw %s of %d bytes, want the %d sent (ending %q)", name, len(got), len(want), want[len(want)-3:])
		}
	}
	after := do(t, "GET", "shop.kamui.test", "/after", nil, "")
	if after.status != 200 || echoed(t, after)["path"] != "/after" {
		t.Fatalf("a small request after: status %d body %q", after.status, after.body)
	}
}

func TestOriginCacheControlKept(t *testing.T) {
	r := do(t, "GET", "shop.kamui.test", "/public", nil, "")
	if r.status != 200 || r.header.Get("Cache-Control") != "public, max-age=30" {
		t.Fatalf("status %d Cache-Control %q", r.status, r.header.Get("Cache-Control"))
	}
}

func TestPostBodyStreams(t *testing.T) {
	r := do(t, "POST", "shop.kamui.test", "/orders", map[string]string{"Content-Type": "text/plain"}, "order-payload")
	seen := echoed(t, r)
	if seen["method"] != "POST" || seen["body"] != "order-payload" {
		t.Fatalf("upstream saw %q %q", seen["method"], seen["body"])
	}
}

func TestCustomDomainAndRouteCache(t *testing.T) {
	before := wrapperReads(t)
	first := do(t, "GET", "WWW.Shop.Example.:443", "/a", nil, "")
	if first.status != 200 || echoed(t, first)["h:kamui-app"] != "shop" {
		t.Fatalf("first: %d %q", first.status, first.body)
	}
	// DOMAINS, then ROUTES unless an earlier test resolved shop's platform host (its record is
	// reused per app), plus DOMAINS' name filter if no earlier request of the isolate read it.
	n := kvReads(t, first.header.Get("X-Request-Id"))
	if n < 1 || n > 3 {
		t.Errorf("first custom-domain request: kv_reads = %d, want the mapping (and at most the record and the filter)", n)
	}
	second := do(t, "GET", "www.shop.example", "/b", nil, "")
	l := logOf(t, second.header.Get("X-Request-Id"))
	if second.status != 200 || l["kv_reads"] != 0.0 {
		t.Errorf("second: status %d, log %v: want a cached route and no KV read", second.status, l)
	}
	if got := wrapperReads(t) - before; got != n {
		t.Errorf("the runtime-side KV wrapper counted %d reads, the log line %d", got, n)
	}
}

func TestPlatformHostOneKVRead(t *testing.T) {
	r := do(t, "POST", "shop.kamui.test", "/one", nil, "x")
	l := logOf(t, r.header.Get("X-Request-Id"))
	if n, ok := l["kv_reads"].(float64); r.status != 200 || !ok || n > 1 {
		t.Errorf("platform host: status %d, log %v (at most one KV read)", r.status, l)
	}
}

func TestUnknownHostNegativeCache(t *testing.T) {
	first := do(t, "GET", "nowhere.example", "/", nil, "")
	assertFixed(t, first, 404, "nowhere")
	if n := kvReads(t, first.header.Get("X-Request-Id")); n != 1 {
		t.Errorf("unknown custom host: kv_reads = %d, want 1", n)
	}
	second := do(t, "GET", "nowhere.example", "/", nil, "")
	assertFixed(t, second, 404, "nowhere")
	if n := kvReads(t, second.header.Get("X-Request-Id")); n != 0 {
		t.Errorf("negative cache: kv_reads = %d, want 0", n)
	}
	unknownApp := do(t, "GET", "ghost.kamui.test", "/", nil, "")
	assertFixed(t, unknownApp, 404, "ghost")
}

func TestXSSPathNotReflected(t *testing.T) {
	path := "/%3Cscript%3Ealert(1)%3C/script%3E?q=%3Cimg%20src=x%20onerror=alert(1)%3E"
	r := do(t, "GET", "xss-probe.example", path, map[string]string{"User-Agent": "<svg onload=alert(1)>"}, "")
	assertFixed(t, r, 404, "script", "alert", "onerror", "xss-probe", "svg")
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q, want text/plain", ct)
	}
}

func TestBadHost(t *testing.T) {
	// Hosts the runtime's URL parser accepts but that are no DNS name we serve.
	for _, h := range []string{"-evil-.example", "203.0.113.7", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z." + strings.Repeat("x", 64)} {
		r := do(t, "GET", h, "/", nil, "")
		assertFixed(t, r, 400, "evil", "203.0.113.7", "xxxx")
	}
}

func TestNotActiveAndBadRecords(t *testing.T) {
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"prov.kamui.test", 503},   // record provisioning
		{"www.prov.example", 503},  // mapping provisioning
		{"broken.kamui.test", 502}, // malformed JSON
		{"future.kamui.test", 502}, // unknown schema version
		{"nul.kamui.test", 502},    // a NUL in the value
	} {
		t.Run(tc.host, func(t *testing.T) {
			for i := 0; i < 2; i++ {
				r := do(t, "GET", tc.host, "/", nil, "")
				assertFixed(t, r, tc.status, tc.host)
				// Never cached: the second request reads KV again.
				if n := kvReads(t, r.header.Get("X-Request-Id")); n == 0 {
					t.Errorf("request %d: kv_reads = 0: a %d answer was cached", i, tc.status)
				}
			}
		})
	}
}

func TestStatic(t *testing.T) {
	home := do(t, "GET", "docs.kamui.test", "/", nil, "")
	if home.status != 200 || home.body != "<h1>docs home</h1>" || home.header.Get("Content-Type") != "text/html" {
		t.Fatalf("home: %d %q %q", home.status, home.header.Get("Content-Type"), home.body)
	}
	dir := do(t, "GET", "www.docs.example", "/guide/start.html", nil, "")
	if dir.status != 200 || dir.body != "<h1>start</h1>" {
		t.Fatalf("custom-domain static with a forged cache entry: %d %q", dir.status, dir.body)
	}
	missing := do(t, "GET", "docs.kamui.test", "/nope", nil, "")
	if missing.status != 404 || missing.body != "<h1>docs 404</h1>" {
		t.Fatalf("not_found page: %d %q", missing.status, missing.body)
	}
	spa := do(t, "GET", "spa.kamui.test", "/deep/route", nil, "")
	if spa.status != 200 || spa.body != "<div id=app>spa</div>" {
		t.Fatalf("spa fallback: %d %q", spa.status, spa.body)
	}
	spaAsset := do(t, "GET", "spa.kamui.test", "/missing.js", nil, "")
	assertFixed(t, spaAsset, 404, "missing.js")
	traversal := do(t, "GET", "docs.kamui.test", "/%2e%2e/%2e%2e/secret", nil, "")
	if traversal.status != 404 {
		t.Fatalf("traversal: %d", traversal.status)
	}
}

// TestStaticObjectBadContentType: an object whose Content-Type no header may carry (CR/LF
// would split one) is a static-error 502 under the request's own id, as a manifest's bad type
// is, on the first read and on one made with the route memoized; never the adapter's
// 500 (adapter-failure) under another id after a line saying it was served.
func TestStaticObjectBadContentType(t *testing.T) {
	for i := range 2 {
		r := do(t, "GET", "docs.kamui.test", "/badtype.txt", nil, "")
		assertFixed(t, r, 502, "Set-Cookie")
		if c := r.header.Values("Set-Cookie"); len(c) != 0 {
			t.Errorf("request %d: Set-Cookie %q", i, c)
		}
		l := logOf(t, r.header.Get("X-Request-Id"))
		if l["outcome"] != "static-error" || l["status"] != 502.0 {
			t.Errorf("request %d: log line %v, want outcome static-error and status 502", i, l)
		}
	}
}

func TestStaticContentCache(t *testing.T) {
	first := do(t, "GET", "docs.kamui.test", "/cached.html", nil, "")
	if first.status != 200 || first.body != "<h1>cached once</h1>" {
		t.Fatalf("first: %d %q", first.status, first.body)
	}
	// The content-cache put runs after the response (waitUntil): poll for the hit.
	var l map[string]any
	for i := 0; i < 50; i++ {
		r := do(t, "GET", "docs.kamui.test", "/cached.html", nil, "")
		l = logOf(t, r.header.Get("X-Request-Id"))
		if l["content_cache"] == "hit" {
			if r.body != "<h1>cached once</h1>" || r.header.Get(route.CacheMarkerHeader) != "" {
				t.Fatalf("hit: body %q marker %q", r.body, r.header.Get(route.CacheMarkerHeader))
			}
			if l["kv_reads"] != 0.0 {
				t.Errorf("content hit read KV: %v", l)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no content-cache hit; last log %v", l)
}

func TestMarker(t *testing.T) {
	hit := do(t, "GET", "docs.kamui.test", "/precached.html", nil, "")
	if hit.status != 200 || hit.body != "FROM-CACHE" || hit.header.Get(route.CacheMarkerHeader) != "" {
		t.Fatalf("marked entry: %d %q marker %q", hit.status, hit.body, hit.header.Get(route.CacheMarkerHeader))
	}
	if l := logOf(t, hit.header.Get("X-Request-Id")); l["content_cache"] != "hit" {
		t.Errorf("log %v", l)
	}
	unmarked := do(t, "GET", "docs.kamui.test", "/index.html", nil, "")
	if unmarked.body == "UNMARKED" || unmarked.body != "<h1>docs home</h1>" {
		t.Fatalf("unmarked entry served: %q", unmarked.body)
	}
	if l := logOf(t, unmarked.header.Get("X-Request-Id")); l["content_cache"] != "unmarked" {
		t.Errorf("log %v", l)
	}
}

func TestUpstreamTimeout(t *testing.T) {
	r := do(t, "GET", "slow.kamui.test", "/", nil, "")
	assertFixed(t, r, 504, "slow")
}

func TestUpstreamConnectFailure(t *testing.T) {
	r := do(t, "GET", "down.kamui.test", "/", nil, "")
	assertFixed(t, r, 502, "down")
}

// TestUpstreamInvalidStatus: an upstream answering a status no response may carry (above
// 599) is an upstream failure, answered and logged as one under the request's own id, not
// the adapter-failure 500 under another.
func TestUpstreamInvalidStatus(t *testing.T) {
	r := do(t, "GET", "shop.kamui.test", "/status-999", nil, "")
	assertFixed(t, r, 502)
	l := logOf(t, r.header.Get("X-Request-Id"))
	if l["outcome"] != "upstream-unreachable" || l["status"] != 502.0 {
		t.Errorf("log line %v, want outcome upstream-unreachable and status 502", l)
	}
}

func TestWebSocket(t *testing.T) {
	u, _ := url.Parse(edgeURL)
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if err := c.SetDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err = c.Write([]byte("GET /socket HTTP/1.1\r\nHost: chat.kamui.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d %q", resp.StatusCode, b)
	}
	if _, err := c.Write(textFrame([]byte("hello"), []byte{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	p, err := readFrame(br)
	if err != nil {
		t.Fatal(err)
	}
	if string(p) != "echo:hello" {
		t.Fatalf("frame %q", p)
	}
}

func TestKVFailureNeverCached(t *testing.T) {
	for _, h := range []string{"kvfail.kamui.test", "www.kvfail.example"} {
		for i := 0; i < 2; i++ {
			r := do(t, "GET", h, "/", nil, "")
			assertFixed(t, r, 503, "kvfail")
			l := logOf(t, r.header.Get("X-Request-Id"))
			if l["outcome"] != "kv-error" || l["kv_reads"] == 0.0 {
				t.Errorf("%s request %d: log %v (a KV failure must be read again, never cached)", h, i, l)
			}
		}
	}
}

func TestCacheFailureStillRoutes(t *testing.T) {
	// Both the content lookup (URL on cachefail.kamui.test) and the route-cache lookup and
	// put (key ends in cachefail.kamui.test) reject: the request is still routed via KV.
	for i := 0; i < 2; i++ {
		r := do(t, "GET", "cachefail.kamui.test", "/x", nil, "")
		if r.status != 200 || echoed(t, r)["h:kamui-app"] != "cachefail" {
			t.Fatalf("request %d: %d %q", i, r.status, r.body)
		}
		l := logOf(t, r.header.Get("X-Request-Id"))
		if i == 0 && (l["content_cache"] != "error" || l["route_cache"] != "error") {
			t.Errorf("log %v: want content_cache and route_cache errors", l)
		}
	}
}

// TestBadBindingsFailClosed runs the same Worker with a missing secret and an invalid
// platform domain: every request is a fixed 500 with a log line naming the bindings, and
// nothing is routed (no KV read).
func TestBadBindingsFailClosed(t *testing.T) {
	bad := startOwnHost(t, HostConfig{
		ModulesRoot:        workerDir,
		Modules:            EdgeModules(),
		CompatibilityDate:  route.WorkerCompatibilityDate,
		CompatibilityFlags: route.WorkerCompatibilityFlags(),
		Bindings: map[string]string{
			"PLATFORM_DOMAIN":          "Not A Domain",
			"FRESHNESS_BUDGET_SECONDS": "120",
			"UPSTREAM_TIMEOUT_MS":      "30000",
			"LOG_SAMPLE_RATE":          "1",
			"CACHE_MARKER":             testMarker,
		},
		KV:      seedKV(),
		R2:      seedR2(),
		CountKV: true,
	}, time.Minute)
	useHost(t, bad)

	r := do(t, "GET", "shop.kamui.test", "/", nil, "")
	assertFixed(t, r, 500, "shop", "Not A Domain")
	l := logOf(t, r.header.Get("X-Request-Id"))
	errText, _ := l["error"].(string)
	if l["outcome"] != "bad-config" || !strings.Contains(errText, "SIGNING_SECRET") || !strings.Contains(errText, "PLATFORM_DOMAIN") {
		t.Errorf("log %v", l)
	}
	if strings.Contains(errText, testMarker) {
		t.Errorf("log leaks a secret: %v", l)
	}
	if n := wrapperReads(t); n != 0 {
		t.Errorf("a misconfigured Worker read KV %d times", n)
	}
}

// TestKVCacheTTLs checks, from inside the runtime, that every KV read carries the cacheTtl
// derived from the freshness budget (120 s): DOMAINS 48 s, ROUTES 36 s, and each namespace's
// name filter FilterKV, 36 s. Without it KV would apply its 60 s default and break the budget.
func TestKVCacheTTLs(t *testing.T) {
	do(t, "GET", "www.docs.example", "/", nil, "")
	do(t, "GET", "shop.kamui.test", "/", nil, "")
	r := do(t, "GET", "kv-stats.host.invalid", "/", nil, "")
	var v struct{ CacheTtls map[string][]string }
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"DOMAINS": {"36", "48"}, "ROUTES": {"36"}} // sorted
	for ns, ttls := range want {
		got := slices.Sorted(slices.Values(v.CacheTtls[ns]))
		if !slices.Equal(got, ttls) {
			t.Errorf("%s reads used cacheTtl %v, want %v", ns, got, ttls)
		}
	}
}

// TestOriginFetchBypassesSharedCache: every app forwards to the same tunnel origin URL, so the
// origin fetch must neither read nor fill a zone cache keyed by URL (cache: "no-store"). A
// runtime without a zone in front cannot show the cache itself; what workerd does show is how
// it marks such a subrequest on the wire (Cache-Control: no-cache and Pragma: no-cache, sent
// by no client here), which is what the local edge's emulated zone cache honours. A shim that
// dropped the option would lose both headers and fail here.
func TestOriginFetchBypassesSharedCache(t *testing.T) {
	for _, method := range []string{"GET", "POST"} {
		r := do(t, method, "shop.kamui.test", "/assets/app.js", nil, "")
		seen := echoed(t, r)
		if seen["h:cache-control"] != "no-cache" || seen["h:pragma"] != "no-cache" {
			t.Errorf("%s: upstream saw Cache-Control %q, Pragma %q: the origin fetch does not opt out of the zone cache",
				method, seen["h:cache-control"], seen["h:pragma"])
		}
	}
}

// TestRouteEntriesNeverServedAsContent: a GET of the route cache's own URL (a reserved host)
// is refused before any lookup, and a marked route entry stored under a public URL is no
// content hit: neither tells an outsider whether or when a host was resolved.
func TestRouteEntriesNeverServedAsContent(t *testing.T) {
	internal := do(t, "GET", "kamui-internal."+platform, "/route/v1/www.shop.example", nil, "")
	assertFixed(t, internal, 404)
	if internal.header.Get("Age") != "" || internal.header.Get("Kamui-Route-Entry") != "" {
		t.Errorf("the route entry's URL answered with Age %q, entry %q", internal.header.Get("Age"), internal.header.Get("Kamui-Route-Entry"))
	}
	if l := logOf(t, internal.header.Get("X-Request-Id")); l["content_cache"] != "skip" {
		t.Errorf("a reserved host was looked up in the cache: %v", l)
	}
	public := do(t, "GET", "docs.kamui.test", "/guide/start.html?entry", nil, "")
	if public.status != 200 || public.body != "<h1>start</h1>" || public.header.Get("Age") != "" {
		t.Fatalf("a route entry under a content URL: %d %q Age %q", public.status, public.body, public.header.Get("Age"))
	}
	if l := logOf(t, public.header.Get("X-Request-Id")); l["content_cache"] != "route-entry" {
		t.Errorf("log %v", l)
	}
}

// TestUnderscoreHeadersNeverForwarded: underscore spellings of forwarding and platform headers
// are dropped at the edge (nginx's default), since CGI-style stacks merge them with the real ones.
func TestUnderscoreHeadersNeverForwarded(t *testing.T) {
	r := do(t, "GET", "shop.kamui.test", "/", map[string]string{
		"X_Forwarded_Host": "evil.example", "X_Forwarded_For": "6.6.6.6", "X_Real_IP": "6.6.6.6", "Kamui_App": "admin",
	}, "")
	seen := echoed(t, r)
	for k, v := range seen {
		if strings.Contains(k, "_") {
			t.Errorf("upstream saw %s = %q", k, v)
		}
	}
	if seen["h:x-forwarded-host"] != "shop.kamui.test" {
		t.Errorf("X-Forwarded-Host = %q", seen["h:x-forwarded-host"])
	}
}

// signedProbe is the headers of a propagation probe for host expecting rev, signed now with the
// probe key of the Worker's test secret.
func signedProbe(host, rev string) map[string]string {
	h := http.Header{}
	route.Probe{Host: host, ExpectRev: rev, Time: time.Now()}.SetHeaders(h, route.ProbeKey([]byte(testSecret)))
	return map[string]string{route.ExpectRevHeader: h.Get(route.ExpectRevHeader),
		route.ProbeTimeHeader: h.Get(route.ProbeTimeHeader), route.ProbeSignatureHeader: h.Get(route.ProbeSignatureHeader)}
}

// TestProbeOfACustomHost: in the runtime, a probe of a custom host for its mapping's revision
// matches when the mapping's app has a record, and answers mapping-no-record (not a match)
// when it has none, as visitors of that host get 404.
func TestProbeOfACustomHost(t *testing.T) {
	probe := func(host string, m route.DomainMapping) string {
		t.Helper()
		_, stored, err := route.EncodeDomainMapping(m)
		if err != nil {
			t.Fatal(err)
		}
		r := do(t, "GET", host, route.ProbePath, signedProbe(host, stored.Rev), "")
		if r.status != 204 {
			t.Fatalf("probe of %s: HTTP %d", host, r.status)
		}
		return r.header.Get(route.RevMatchHeader)
	}
	if got := probe("www.shop.example", route.DomainMapping{App: "shop", Status: route.StatusActive}); got != route.RevMatchMapping {
		t.Errorf("a mapping to an app with a record: %s %q, want %q", route.RevMatchHeader, got, route.RevMatchMapping)
	}
	if r := do(t, "GET", "www.ghost.example", "/", nil, ""); r.status != 404 {
		t.Fatalf("www.ghost.example: HTTP %d, want the edge's 404", r.status)
	}
	if got := probe("www.ghost.example", route.DomainMapping{App: "ghost", Status: route.StatusActive}); got != route.RevMatchMappingNoRecord {
		t.Errorf("a mapping to an app with no record: %s %q, want %q", route.RevMatchHeader, got, route.RevMatchMappingNoRecord)
	}
}

// TestProbeNeedsSignature: in the runtime, a signed probe is answered by the Worker; the same
// probe unsigned, or signed for another host, is an ordinary request of the URL (forwarded).
func TestProbeNeedsSignature(t *testing.T) {
	rec, _, _ := route.EncodeRecord(dyn("shop", "tunnel.kamui.test", 5000))
	var shop route.Record
	if err := json.Unmarshal(rec, &shop); err != nil {
		t.Fatal(err)
	}
	signed := func(host string) map[string]string { return signedProbe(host, shop.Rev) }
	ok := do(t, "GET", "shop.kamui.test", route.ProbePath, signed("shop.kamui.test"), "")
	if ok.status != 204 || ok.header.Get(route.RevMatchHeader) != route.RevMatchRecord {
		t.Fatalf("signed probe: %d, %s %q", ok.status, route.RevMatchHeader, ok.header.Get(route.RevMatchHeader))
	}
	for name, hdr := range map[string]map[string]string{
		"unsigned":       {route.ExpectRevHeader: shop.Rev},
		"another host's": signed("www.shop.example"),
	} {
		r := do(t, "GET", "shop.kamui.test", route.ProbePath, hdr, "")
		if r.status != 200 || r.header.Get(route.RevMatchHeader) != "" || echoed(t, r)["path"] != route.ProbePath {
			t.Errorf("%s probe: %d %s %q, want the app's own answer", name, r.status, route.RevMatchHeader, r.header.Get(route.RevMatchHeader))
		}
	}
}
