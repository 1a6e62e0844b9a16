package localedge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// cacheHarness serves requests through a zoneCache in front of a scripted origin, on a real
// HTTP server (so streaming is observable). The request's X-Test-Host header names the host
// the "Worker" fetched (default origin.kamui.test); X-Test-Scheme its scheme.
type cacheHarness struct {
	t      *testing.T
	cache  *zoneCache
	now    time.Time
	nowMu  sync.Mutex
	calls  atomic.Int32
	origin http.HandlerFunc
	logs   *syncBuffer
	srv    *httptest.Server

	rulesMu sync.Mutex
	rules   []cfapi.RulesetRule
	// served, when set, receives each request's path once the cache is done with it.
	served chan string
}

func newCacheHarness(t *testing.T, cfg zoneCacheConfig, origin http.HandlerFunc) *cacheHarness {
	h := &cacheHarness{t: t, now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), origin: origin, logs: &syncBuffer{}}
	cfg.Now = h.clock
	cfg.Rules = func() []cfapi.RulesetRule {
		h.rulesMu.Lock()
		defer h.rulesMu.Unlock()
		return h.rules
	}
	cfg.Logger = slog.New(slog.NewTextHandler(h.logs, nil))
	h.cache = newZoneCache(cfg)
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.calls.Add(1)
		h.origin(w, r)
	})
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, scheme := r.Header.Get("X-Test-Host"), r.Header.Get("X-Test-Scheme")
		if host == "" {
			host = "origin.kamui.test"
		}
		if scheme == "" {
			scheme = "https"
		}
		u := &url.URL{Scheme: scheme, Host: host, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
		h.cache.serve(w, r, u, counted)
		if h.served != nil {
			h.served <- r.URL.Path
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *cacheHarness) setRules(rules ...cfapi.RulesetRule) {
	h.rulesMu.Lock()
	h.rules = rules
	h.rulesMu.Unlock()
}

func (h *cacheHarness) clock() time.Time {
	h.nowMu.Lock()
	defer h.nowMu.Unlock()
	return h.now
}

func (h *cacheHarness) advance(d time.Duration) {
	h.nowMu.Lock()
	h.now = h.now.Add(d)
	h.nowMu.Unlock()
}

// do sends one request; headers are "Name: value" strings.
func (h *cacheHarness) do(method, target string, headers ...string) (*http.Response, string) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+target, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, kv := range headers {
		k, v, _ := strings.Cut(kv, ": ")
		req.Header.Add(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// expect sends a request and checks the Cf-Cache-Status, the body and whether the origin was
// asked ("origin" true) or the cache answered.
func (h *cacheHarness) expect(what, method, target, wantStatus, wantBody string, wantOrigin bool, headers ...string) *http.Response {
	h.t.Helper()
	before := h.calls.Load()
	resp, body := h.do(method, target, headers...)
	asked := h.calls.Load() != before
	if got := resp.Header.Get(headerCacheStatus); got != wantStatus || body != wantBody || asked != wantOrigin {
		h.t.Errorf("%s: %s %s → Cf-Cache-Status %q, body %q, origin asked %v; want %q, %q, %v",
			what, method, target, got, body, asked, wantStatus, wantBody, wantOrigin)
	}
	return resp
}

// counterOrigin answers "<path> #<n>" with the Cache-Control given in the request's
// X-Test-Cache-Control header (none when absent) and the status in X-Test-Status.
func counterOrigin() http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if cc := r.Header.Get("X-Test-Cache-Control"); cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		for _, h := range r.Header.Values("X-Test-Header") {
			k, v, _ := strings.Cut(h, ": ")
			w.Header().Add(k, v)
		}
		if s := r.Header.Get("X-Test-Status"); s != "" {
			code, err := strconv.Atoi(s)
			if err != nil {
				http.Error(w, "X-Test-Status: "+err.Error(), http.StatusBadRequest)
				return
			}
			w.WriteHeader(code)
		}
		// Handlers here and below leave a failed write to the client's checks on what arrived.
		_, _ = fmt.Fprintf(w, "%s #%d", r.URL.Path, n.Add(1))
	}
}

func TestZoneCache_DefaultCacheableExtensions(t *testing.T) {
	h := newCacheHarness(t, zoneCacheConfig{}, counterOrigin())
	h.expect("first .js", "GET", "/assets/app.js", cacheMiss, "/assets/app.js #1", true)
	resp := h.expect("second .js", "GET", "/assets/app.js", cacheHit, "/assets/app.js #1", false)
	if resp.Header.Get("Age") != "0" {
		t.Errorf("a HIT carries Age %q, want 0", resp.Header.Get("Age"))
	}
	h.advance(90 * time.Second)
	if resp := h.expect("a later HIT", "GET", "/assets/app.js", cacheHit, "/assets/app.js #1", false); resp.Header.Get("Age") != "90" {
		t.Errorf("Age after 90 s = %q", resp.Header.Get("Age"))
	}
	h.expect("upper-case extension", "GET", "/LOGO.PNG", cacheMiss, "/LOGO.PNG #2", true)
	h.expect("upper-case extension again", "GET", "/LOGO.PNG", cacheHit, "/LOGO.PNG #2", false)
	h.expect("robots.txt", "GET", "/robots.txt", cacheMiss, "/robots.txt #3", true)
	h.expect("robots.txt again", "GET", "/robots.txt", cacheHit, "/robots.txt #3", false)
	for i, p := range []string{"/index.html", "/api/items", "/data.json", "/", "/js"} {
		n := 4 + 2*i
		h.expect("not a cacheable extension", "GET", p, cacheDynamic, fmt.Sprintf("%s #%d", p, n), true)
		h.expect("not a cacheable extension, again", "GET", p, cacheDynamic, fmt.Sprintf("%s #%d", p, n+1), true)
	}
	if !hasCacheableExtension("/a/b.woff2") || !hasCacheableExtension("/x.tar") || hasCacheableExtension("/x.html") || hasCacheableExtension("/js/") {
		t.Error("hasCacheableExtension: woff2 and tar are cacheable, html and a directory are not")
	}
}

func TestZoneCache_OnlyGETAndHEAD(t *testing.T) {
	h := newCacheHarness(t, zoneCacheConfig{}, counterOrigin())
	h.expect("POST", "POST", "/assets/app.js", cacheDynamic, "/assets/app.js #1", true)
	h.expect("GET after a POST", "GET", "/assets/app.js", cacheMiss, "/assets/app.js #2", true)
	h.expect("PUT", "PUT", "/assets/app.js", cacheDynamic, "/assets/app.js #3", true)
	h.expect("HEAD of a stored GET", "HEAD", "/assets/app.js", cacheHit, "", false)
	h.expect("HEAD not stored", "HEAD", "/assets/other.js", cacheMiss, "", true)
	h.expect("HEAD did not store", "GET", "/assets/other.js", cacheMiss, "/assets/other.js #5", true)
}

func TestZoneCache_OriginCacheControl(t *testing.T) {
	h := newCacheHarness(t, zoneCacheConfig{}, counterOrigin())
	for _, cc := range []string{"private, max-age=600", "no-store", "no-cache", "max-age=0", "public, max-age=0", "s-maxage=0, max-age=600", `no-cache="Set-Cookie"`, "max-age=soon"} {
		p := "/bypass/" + url.PathEscape(cc) + ".css"
		before := h.calls.Load()
		h.expect("Cache-Control "+cc, "GET", p, cacheBypass, fmt.Sprintf("%s #%d", mustUnescape(p), before+1), true, "X-Test-Cache-Control: "+cc)
		h.expect("Cache-Control "+cc+", again", "GET", p, cacheBypass, fmt.Sprintf("%s #%d", mustUnescape(p), before+2), true, "X-Test-Cache-Control: "+cc)
	}
	before := h.calls.Load()
	h.expect("Set-Cookie", "GET", "/cookie.js", cacheBypass, fmt.Sprintf("/cookie.js #%d", before+1), true,
		"X-Test-Cache-Control: public, max-age=3600", "X-Test-Header: Set-Cookie: session=1")
	h.expect("Set-Cookie, again", "GET", "/cookie.js", cacheBypass, fmt.Sprintf("/cookie.js #%d", before+2), true,
		"X-Test-Cache-Control: public, max-age=3600", "X-Test-Header: Set-Cookie: session=1")

	// s-maxage wins over max-age.
	n := h.calls.Load() + 1
	h.expect("s-maxage", "GET", "/shared.js", cacheMiss, fmt.Sprintf("/shared.js #%d", n), true, "X-Test-Cache-Control: public, max-age=3600, s-maxage=60")
	h.advance(59 * time.Second)
	h.expect("within s-maxage", "GET", "/shared.js", cacheHit, fmt.Sprintf("/shared.js #%d", n), false)
	h.advance(2 * time.Second)
	h.expect("past s-maxage", "GET", "/shared.js", cacheExpired, fmt.Sprintf("/shared.js #%d", n+1), true, "X-Test-Cache-Control: public, max-age=3600, s-maxage=60")
	h.expect("stored again after EXPIRED", "GET", "/shared.js", cacheHit, fmt.Sprintf("/shared.js #%d", n+1), false)

	// max-age alone.
	n = h.calls.Load() + 1
	h.expect("max-age", "GET", "/long.js", cacheMiss, fmt.Sprintf("/long.js #%d", n), true, "X-Test-Cache-Control: public, max-age=86400")
	h.advance(23 * time.Hour)
	h.expect("within max-age", "GET", "/long.js", cacheHit, fmt.Sprintf("/long.js #%d", n), false)

	// Expires when there is no max-age.
	n = h.calls.Load() + 1
	expires := h.clock().Add(10 * time.Minute).Format(http.TimeFormat)
	h.expect("Expires", "GET", "/expires.js", cacheMiss, fmt.Sprintf("/expires.js #%d", n), true, "X-Test-Header: Expires: "+expires)
	h.advance(9 * time.Minute)
	h.expect("before Expires", "GET", "/expires.js", cacheHit, fmt.Sprintf("/expires.js #%d", n), false)
	h.advance(2 * time.Minute)
	h.expect("after Expires", "GET", "/expires.js", cacheExpired, fmt.Sprintf("/expires.js #%d", n+1), true)
	n = h.calls.Load() + 1
	h.expect("Expires in the past", "GET", "/expired.js", cacheBypass, fmt.Sprintf("/expired.js #%d", n), true, "X-Test-Header: Expires: Thu, 01 Jan 1970 00:00:00 GMT")

	// No Cache-Control: the default edge TTL of the status.
	for _, tc := range []struct {
		status int
		ttl    time.Duration
	}{{200, 120 * time.Minute}, {301, 120 * time.Minute}, {302, 20 * time.Minute}, {404, 3 * time.Minute}, {410, 3 * time.Minute}} {
		p := fmt.Sprintf("/default-%d.js", tc.status)
		status := fmt.Sprintf("X-Test-Status: %d", tc.status)
		n := h.calls.Load() + 1
		h.expect(p, "GET", p, cacheMiss, fmt.Sprintf("%s #%d", p, n), true, status)
		h.advance(tc.ttl - time.Second)
		h.expect(p+" within the default TTL", "GET", p, cacheHit, fmt.Sprintf("%s #%d", p, n), false, status)
		h.advance(2 * time.Second)
		h.expect(p+" past the default TTL", "GET", p, cacheExpired, fmt.Sprintf("%s #%d", p, n+1), true, status)
	}
	for _, code := range []int{500, 503, 403} {
		p := fmt.Sprintf("/uncached-%d.js", code)
		n := h.calls.Load() + 1
		h.expect(p, "GET", p, cacheMiss, fmt.Sprintf("%s #%d", p, n), true, fmt.Sprintf("X-Test-Status: %d", code))
		h.expect(p+" again", "GET", p, cacheMiss, fmt.Sprintf("%s #%d", p, n+1), true, fmt.Sprintf("X-Test-Status: %d", code))
	}
	// A request with Authorization is never cached.
	n = h.calls.Load() + 1
	h.expect("Authorization", "GET", "/private.js", cacheBypass, fmt.Sprintf("/private.js #%d", n), true, "Authorization: Bearer x", "X-Test-Cache-Control: public, max-age=60")
	h.expect("Authorization did not store", "GET", "/private.js", cacheMiss, fmt.Sprintf("/private.js #%d", n+1), true, "X-Test-Cache-Control: public, max-age=60")
}

func mustUnescape(p string) string {
	u, _ := url.PathUnescape(p)
	return u
}

// TestZoneCache_KeyIsTheURL: scheme, host, path and query make the key; request headers do
// not (which is why two tenants behind one origin URL would share an entry).
func TestZoneCache_KeyIsTheURL(t *testing.T) {
	h := newCacheHarness(t, zoneCacheConfig{}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = fmt.Fprintf(w, "for %s %s", r.Header.Get("Kamui-App"), r.URL.RequestURI())
	})
	h.expect("tenant shop", "GET", "/assets/app.js", cacheMiss, "for shop /assets/app.js", true, "Kamui-App: shop")
	h.expect("tenant blog, same URL", "GET", "/assets/app.js", cacheHit, "for shop /assets/app.js", false, "Kamui-App: blog")
	h.expect("another query", "GET", "/assets/app.js?v=2", cacheMiss, "for blog /assets/app.js?v=2", true, "Kamui-App: blog")
	h.expect("another host", "GET", "/assets/app.js", cacheMiss, "for blog /assets/app.js", true, "Kamui-App: blog", "X-Test-Host: origin2.kamui.test")
	h.expect("another scheme", "GET", "/assets/app.js", cacheMiss, "for blog /assets/app.js", true, "Kamui-App: blog", "X-Test-Scheme: http")
	h.expect("host case and port do not matter", "GET", "/assets/app.js", cacheHit, "for shop /assets/app.js", false, "X-Test-Host: Origin.Kamui.Test:443")
	h.expect("path case does", "GET", "/Assets/app.js", cacheMiss, "for  /Assets/app.js", true)
	if got := h.cache.len(); got != 5 {
		t.Errorf("%d entries, want 5", got)
	}
}

// TestZoneCache_OptOut: the Cache-Control: no-cache + Pragma: no-cache pair (workerd's mark of
// a fetch with cache: "no-store") neither reads nor fills the cache and gets no
// Cf-Cache-Status; either header alone is an ordinary request.
func TestZoneCache_OptOut(t *testing.T) {
	h := newCacheHarness(t, zoneCacheConfig{}, counterOrigin())
	optOut := []string{"Cache-Control: no-cache", "Pragma: no-cache", "X-Test-Cache-Control: public, max-age=86400"}
	h.expect("opted out", "GET", "/assets/app.js", "", "/assets/app.js #1", true, optOut...)
	h.expect("opted out did not store", "GET", "/assets/app.js", cacheMiss, "/assets/app.js #2", true, "X-Test-Cache-Control: public, max-age=86400")
	h.expect("stored", "GET", "/assets/app.js", cacheHit, "/assets/app.js #2", false)
	h.expect("opted out does not read", "GET", "/assets/app.js", "", "/assets/app.js #3", true, optOut...)
	h.expect("Cache-Control: no-cache alone", "GET", "/assets/app.js", cacheHit, "/assets/app.js #2", false, "Cache-Control: no-cache")
	h.expect("the pair in other spellings", "GET", "/assets/app.js", "", "/assets/app.js #4", true, "Cache-Control: max-age=0, No-Cache", "Pragma: no-cache")
	// (Pragma alone cannot be sent through a Go server: it adds the Cache-Control, RFC 9111 §5.4.)
	if !optsOut(http.Header{"Cache-Control": {"no-cache"}, "Pragma": {"no-cache"}}) ||
		optsOut(http.Header{"Cache-Control": {"no-cache"}}) || optsOut(http.Header{"Pragma": {"no-cache"}}) {
		t.Error("optsOut: the pair opts out, either header alone does not")
	}
}

func cacheRule(expr string, cache, enabled bool) cfapi.RulesetRule {
	params, _ := json.Marshal(map[string]bool{"cache": cache})
	return cfapi.RulesetRule{ID: expr, Action: cfapi.ActionSetCacheSettings, ActionParameters: params, Expression: expr, Enabled: enabled}
}

// TestZoneCache_CacheRules: a matching "cache": false rule bypasses the cache (DYNAMIC) for
// the shapes of expression the provider writes; the last matching rule wins; disabled rules,
// rules for other hosts and expressions the cache does not understand change nothing (the
// latter logged once).
func TestZoneCache_CacheRules(t *testing.T) {
	h := newCacheHarness(t, zoneCacheConfig{}, counterOrigin())
	cc := "X-Test-Cache-Control: public, max-age=86400"
	h.expect("no rule", "GET", "/assets/app.js", cacheMiss, "/assets/app.js #1", true, cc)
	h.expect("no rule, stored", "GET", "/assets/app.js", cacheHit, "/assets/app.js #1", false, cc)
	for _, expr := range []string{
		`(http.host eq "origin.kamui.test")`,
		`http.host == "origin.kamui.test"`,
		`(http.host in {"old.kamui.test" "origin.kamui.test"})`,
		`(http.host eq "other.kamui.test") or (http.host eq "origin.kamui.test")`,
		`http.host eq "x.test" || (http.host in {"origin.kamui.test"})`,
	} {
		h.setRules(cacheRule(expr, false, true))
		n := h.calls.Load() + 1
		h.expect("bypass rule "+expr, "GET", "/assets/app.js", cacheDynamic, fmt.Sprintf("/assets/app.js #%d", n), true, cc)
	}
	for _, tc := range []struct {
		why   string
		rules []cfapi.RulesetRule
	}{
		{"a rule for another host", []cfapi.RulesetRule{cacheRule(`(http.host eq "origin2.kamui.test")`, false, true)}},
		{"a disabled rule", []cfapi.RulesetRule{cacheRule(`(http.host eq "origin.kamui.test")`, false, false)}},
		{"a later rule turning caching back on", []cfapi.RulesetRule{
			cacheRule(`(http.host eq "origin.kamui.test")`, false, true), cacheRule(`(http.host eq "origin.kamui.test")`, true, true)}},
		{"an expression the cache does not understand", []cfapi.RulesetRule{cacheRule(`(http.host eq "origin.kamui.test" and ssl)`, false, true)}},
		{"a rule without a cache setting", []cfapi.RulesetRule{{Action: cfapi.ActionSetCacheSettings, Enabled: true,
			Expression: `(http.host eq "origin.kamui.test")`, ActionParameters: json.RawMessage(`{"edge_ttl":{"mode":"bypass_by_default"}}`)}}},
	} {
		h.setRules(tc.rules...)
		h.expect(tc.why, "GET", "/assets/app.js", cacheHit, "/assets/app.js #1", false, cc)
	}
	h.expect("the unknown expression again", "GET", "/assets/app.js", cacheHit, "/assets/app.js #1", false, cc)
	if n := strings.Count(h.logs.String(), "does not understand"); n != 1 {
		t.Errorf("the unsupported expression was logged %d times, want once:\n%s", n, h.logs)
	}
	// The rule's bypass is per host: the later rule for it wins, other hosts are cached.
	h.setRules(cacheRule(`(http.host eq "origin.kamui.test")`, true, true), cacheRule(`(http.host eq "origin.kamui.test")`, false, true))
	h.expect("the last matching rule wins", "GET", "/assets/app.js", cacheDynamic, fmt.Sprintf("/assets/app.js #%d", h.calls.Load()+1), true, cc)
	// "cache": true makes anything eligible, whatever the extension.
	h.setRules(cacheRule(`(http.host eq "origin.kamui.test")`, true, true))
	n := h.calls.Load() + 1
	h.expect("cache everything", "GET", "/page.html", cacheMiss, fmt.Sprintf("/page.html #%d", n), true, cc)
	h.expect("cache everything, stored", "GET", "/page.html", cacheHit, fmt.Sprintf("/page.html #%d", n), false, cc)
}

func TestParseHostExpression(t *testing.T) {
	for _, tc := range []struct {
		expr  string
		match map[string]bool
	}{
		{`(http.host eq "a.test")`, map[string]bool{"a.test": true, "b.test": false, "A.TEST": false}},
		{`http.host in {"a.test" "b.test"}`, map[string]bool{"a.test": true, "b.test": true, "c.test": false}},
		{`((http.host eq "a.test")) or http.host == "c.test"`, map[string]bool{"a.test": true, "c.test": true, "b.test": false}},
		{`(http.host eq "we\"ird")`, map[string]bool{`we"ird`: true}},
	} {
		m, err := parseHostExpression(tc.expr)
		if err != nil {
			t.Errorf("parseHostExpression(%s): %v", tc.expr, err)
			continue
		}
		for host, want := range tc.match {
			if m(host) != want {
				t.Errorf("%s on %q = %v, want %v", tc.expr, host, !want, want)
			}
		}
	}
	for _, expr := range []string{``, `true`, `(http.host eq "a") and (http.host eq "b")`, `not http.host eq "a"`,
		`http.request.uri.path eq "/"`, `http.host contains "a"`, `(http.host eq "a"`, `http.host in {}`, `http.host eq a`, `http.host eq "a`} {
		if _, err := parseHostExpression(expr); err == nil {
			t.Errorf("parseHostExpression(%q) succeeded; it is outside the understood subset", expr)
		}
	}
}

func TestZoneCache_Purge(t *testing.T) {
	h := newCacheHarness(t, zoneCacheConfig{}, counterOrigin())
	cc := "X-Test-Cache-Control: public, max-age=86400"
	h.expect("a", "GET", "/a.js", cacheMiss, "/a.js #1", true, cc)
	h.expect("b", "GET", "/b.js?v=1", cacheMiss, "/b.js #2", true, cc)
	if n := h.cache.purge([]string{"https://origin.kamui.test/a.js", "https://origin.kamui.test/b.js", "http://origin.kamui.test/b.js?v=1", "::bad"}); n != 1 {
		t.Errorf("purge dropped %d entries, want 1 (only the first URL names a stored key)", n)
	}
	h.expect("a after its purge", "GET", "/a.js", cacheMiss, "/a.js #3", true, cc)
	h.expect("b kept (the purge named other keys)", "GET", "/b.js?v=1", cacheHit, "/b.js #2", false, cc)
	if n := h.cache.purge([]string{"HTTPS://ORIGIN.KAMUI.TEST/b.js?v=1"}); n != 1 {
		t.Errorf("purging with another case of scheme and host dropped %d entries, want 1", n)
	}
	h.expect("b after its purge", "GET", "/b.js?v=1", cacheMiss, "/b.js #4", true, cc)
}

func TestZoneCache_Bounds(t *testing.T) {
	body := strings.Repeat("x", 1000)
	origin := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		if r.URL.Query().Get("len") == "" {
			w.Header().Set("Content-Length", "1000")
		}
		_, _ = io.WriteString(w, body)
	}
	t.Run("entries", func(t *testing.T) {
		h := newCacheHarness(t, zoneCacheConfig{MaxEntries: 2}, origin)
		h.expect("1", "GET", "/1.js", cacheMiss, body, true)
		h.expect("2", "GET", "/2.js", cacheMiss, body, true)
		h.expect("1 again (now most recent)", "GET", "/1.js", cacheHit, body, false)
		h.expect("3 evicts 2, the least recently used", "GET", "/3.js", cacheMiss, body, true)
		h.expect("1 kept", "GET", "/1.js", cacheHit, body, false)
		h.expect("2 evicted", "GET", "/2.js", cacheMiss, body, true)
		if h.cache.len() != 2 {
			t.Errorf("%d entries, want at most 2", h.cache.len())
		}
	})
	t.Run("bytes", func(t *testing.T) {
		h := newCacheHarness(t, zoneCacheConfig{MaxBytes: 2500}, origin)
		h.expect("1", "GET", "/1.js", cacheMiss, body, true)
		h.expect("2", "GET", "/2.js", cacheMiss, body, true)
		h.expect("3 pushes 1 out", "GET", "/3.js", cacheMiss, body, true)
		h.expect("1 evicted", "GET", "/1.js", cacheMiss, body, true)
		h.cache.mu.Lock()
		total := h.cache.bytes
		h.cache.mu.Unlock()
		if total > 2500 || h.cache.len() != 2 {
			t.Errorf("%d entries of %d bytes in all, want 2 within 2500", h.cache.len(), total)
		}
	})
	t.Run("entry size", func(t *testing.T) {
		h := newCacheHarness(t, zoneCacheConfig{MaxEntryBytes: 999}, origin)
		h.expect("declared larger than the limit", "GET", "/big.js", cacheMiss, body, true)
		h.expect("not stored", "GET", "/big.js", cacheMiss, body, true)
		h.expect("streamed past the limit", "GET", "/big.js?len=none", cacheMiss, body, true)
		h.expect("not stored either", "GET", "/big.js?len=none", cacheMiss, body, true)
		h2 := newCacheHarness(t, zoneCacheConfig{MaxEntryBytes: 2000}, origin)
		h2.expect("within the limit", "GET", "/big.js?len=none", cacheMiss, body, true)
		h2.expect("stored", "GET", "/big.js?len=none", cacheHit, body, false)
	})
}

// TestZoneCache_Streams: an answer streams through as the origin writes it, whether it is
// not cacheable (an event stream) or cacheable and being copied: the client reads the first
// event while the origin is still holding the rest back. An answer cut short (the client
// went away) is never stored.
func TestZoneCache_Streams(t *testing.T) {
	release := map[string]chan struct{}{"/events": make(chan struct{}), "/events.js": make(chan struct{}), "/cut.js": make(chan struct{})}
	h := newCacheHarness(t, zoneCacheConfig{}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "public, max-age=60")
		_, _ = fmt.Fprint(w, "data: first\n\n")
		if http.NewResponseController(w).Flush() != nil {
			return // the client went away
		}
		select {
		case <-release[r.URL.Path]:
		case <-r.Context().Done():
			return
		}
		_, _ = fmt.Fprint(w, "data: second\n\n")
	})
	h.served = make(chan string, 16)
	for _, tc := range []struct{ path, status string }{{"/events", cacheDynamic}, {"/events.js", cacheMiss}} {
		// Bounded, so that a cache that buffers fails here instead of hanging the test.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: no answer while the origin held the rest back (the answer is buffered): %v", tc.path, err)
		}
		defer func() { _ = resp.Body.Close() }()
		if got := resp.Header.Get(headerCacheStatus); got != tc.status {
			t.Errorf("%s: Cf-Cache-Status %q, want %q", tc.path, got, tc.status)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		select {
		case line := <-lines:
			if line != "data: first" {
				t.Errorf("%s: first line %q", tc.path, line)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the first event did not arrive while the origin held the rest back: the answer is buffered", tc.path)
		}
		close(release[tc.path])
		var rest []string
		for line := range lines {
			rest = append(rest, line)
		}
		_ = resp.Body.Close()
		if got := strings.Join(rest, "|"); got != "|data: second|" {
			t.Errorf("%s: rest of the stream %q", tc.path, got)
		}
		<-h.served
	}
	h.expect("the complete cacheable stream was stored", "GET", "/events.js", cacheHit, "data: first\n\ndata: second\n\n", false)
	<-h.served

	// A client that goes away mid-stream leaves nothing behind.
	resp, err := http.Get(h.srv.URL + "/cut.js")
	if err != nil {
		t.Fatal(err)
	}
	first, _ := bufio.NewReader(resp.Body).ReadString('\n')
	_ = resp.Body.Close()
	if first != "data: first\n" {
		t.Errorf("cut stream began %q", first)
	}
	if path := <-h.served; path != "/cut.js" {
		t.Fatalf("served %s, want /cut.js", path)
	}
	close(release["/cut.js"])
	h.expect("after a cut stream", "GET", "/cut.js", cacheMiss, "data: first\n\ndata: second\n\n", true)
}
