package workertest

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// js-seed (testdata/js-seed.mjs) is bench-edge's yardstick: the seed design written plainly
// in JavaScript. Its numbers only mean something if it does the job, so it runs here in
// workerd over the edge Worker's own fixture: the statuses and fixed answers match the
// edge's, and the context it signs verifies with internal/route's verifier.
func TestJSSeedInWorkerd(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cfg := hostConfig
	cfg.ModulesRoot = filepath.Join(root, "internal", "workertest", "testdata")
	cfg.Modules = []Module{{Type: "ESModule", Path: "js-seed.mjs"}}
	seed := startOwnHost(t, cfg, 2*time.Minute)

	get := func(t *testing.T, method, hostName, path string, hdr map[string]string) (result, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, seed.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = hostName
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s%s: %v", method, hostName, path, err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		r := result{resp.StatusCode, resp.Header, string(b)}
		id := resp.Header.Get("X-Request-Id")
		if id == "" {
			t.Fatalf("%s %s%s: no X-Request-Id", method, hostName, path)
		}
		line, ok := seed.WaitLog(func(l string) bool { return strings.Contains(l, `"request_id":"`+id+`"`) }, 5*time.Second)
		if !ok {
			t.Fatalf("%s %s%s: no log line", method, hostName, path)
		}
		var l map[string]any
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("log line is not JSON: %v", err)
		}
		return r, l
	}
	// verify checks the context the echo origin received against route's verifier.
	verify := func(t *testing.T, r result, method, target, wantHost, wantApp string) {
		t.Helper()
		var seen map[string]string
		if err := json.Unmarshal([]byte(r.body), &seen); err != nil {
			t.Fatalf("origin answer: %v (%q)", err, r.body)
		}
		h := http.Header{}
		for k, v := range seen {
			if name, ok := strings.CutPrefix(k, "h:"); ok {
				h.Set(name, v)
			}
		}
		c, err := route.VerifyHeaders(h, method, target, []byte(testSecret), time.Now(), 0)
		if err != nil {
			t.Fatalf("the context js-seed signed does not verify: %v (headers %v)", err, h)
		}
		if c.Host != wantHost || c.App != wantApp || c.Upstream != "tenant-"+wantApp+"/web:8080" || c.RequestID != r.header.Get("X-Request-Id") {
			t.Errorf("context %+v, want host %s app %s and the response's request id", c, wantHost, wantApp)
		}
		if _, err := route.VerifyHeaders(h, method, target+"x", []byte(testSecret), time.Now(), 0); err == nil {
			t.Error("the context verifies for another request target")
		}
		if r.header.Get("Kamui-App") != "" || r.header.Get(route.CacheMarkerHeader) != "" {
			t.Errorf("internal headers left the edge: %v", r.header)
		}
		if seen["h:x-forwarded-host"] != wantHost {
			t.Errorf("X-Forwarded-Host %q, want %q", seen["h:x-forwarded-host"], wantHost)
		}
	}

	t.Run("platform host", func(t *testing.T) {
		r, l := get(t, "GET", "Seed-Shop.kamui.test:8443", "/api/items?x=1&y=%20", map[string]string{
			"Kamui-App": "admin", "X-Forwarded-Host": "evil.example", "X_Forwarded_Host": "evil.example"})
		if r.status != 404 {
			// seed-shop is not in the fixture: a platform label without a record.
			t.Fatalf("unknown platform label: status %d, want 404", r.status)
		}
		if l["kv_reads"] != 1.0 || l["outcome"] != "unknown-host" {
			t.Errorf("unknown platform label: log %v", l)
		}
		r, l = get(t, "GET", "Shop.kamui.test:8443", "/api/items?x=1&y=%20", map[string]string{
			"Kamui-App": "admin", "X-Forwarded-Host": "evil.example", "X_Forwarded_Host": "evil.example"})
		if r.status != 200 || r.header.Get("Cache-Control") != "private" {
			t.Fatalf("status %d, Cache-Control %q, want 200 and private", r.status, r.header.Get("Cache-Control"))
		}
		verify(t, r, "GET", "/api/items?x=1&y=%20", "shop.kamui.test", "shop")
		if l["route_source"] != "kv" || l["kv_reads"] != 1.0 || l["io_rounds"] != 3.0 {
			t.Errorf("cold platform host: log %v, want route_source=kv kv_reads=1 io_rounds=3", l)
		}
		// The route-cache entry is put in the background; the next request finds it.
		deadline := time.Now().Add(5 * time.Second)
		for {
			r, l = get(t, "POST", "shop.kamui.test", "/api/items", nil)
			if l["route_source"] == "route-cache" || time.Now().After(deadline) {
				break
			}
		}
		if r.status != 200 || l["route_source"] != "route-cache" || l["kv_reads"] != 0.0 || l["io_rounds"] != 2.0 {
			t.Fatalf("warm platform host: status %d log %v, want a route-cache hit, no KV read, io_rounds=2", r.status, l)
		}
		verify(t, r, "POST", "/api/items", "shop.kamui.test", "shop")
	})

	t.Run("custom host", func(t *testing.T) {
		r, l := get(t, "GET", "WWW.Shop.Example.", "/", nil)
		if r.status != 200 {
			t.Fatalf("status %d, want 200", r.status)
		}
		verify(t, r, "GET", "/", "www.shop.example", "shop")
		if l["host_kind"] != "custom" || l["app"] != "shop" {
			t.Errorf("log %v", l)
		}
		// The fixture seeds a route-cache entry for this host (as the edge writes it), so
		// the first request may already hit it; either way, no more than DOMAINS + ROUTES.
		if n := l["kv_reads"]; n != 0.0 && n != 2.0 {
			t.Errorf("kv_reads %v, want 0 (route cache) or 2 (DOMAINS, ROUTES)", n)
		}
		r, _ = get(t, "GET", "www.prov.example", "/", nil)
		if r.status != 503 || !strings.HasPrefix(r.body, "Service unavailable: this application is not active.\nRequest ID: ") || r.header.Get("Retry-After") != "5" {
			t.Errorf("provisioning mapping: %d %q %v", r.status, r.body, r.header)
		}
	})

	t.Run("unknown host", func(t *testing.T) {
		for _, h := range []string{"nx-seed.unknown.example", "api.kamui.test", "a.b.kamui.test"} {
			r, l := get(t, "GET", h, "/", nil)
			want := "Not found: no application is served at this address.\nRequest ID: " + r.header.Get("X-Request-Id") + "\n"
			if r.status != 404 || r.body != want || r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %d %q %v, want the fixed 404", h, r.status, r.body, r.header)
			}
			if h != "nx-seed.unknown.example" && (l["kv_reads"] != 0.0 || l["cache_lookups"] != 0.0) {
				t.Errorf("%s: a reserved or deeper label cost I/O: %v", h, l)
			}
		}
		r, _ := get(t, "GET", "bad_host.example", "/", nil)
		if r.status != 400 || !strings.HasPrefix(r.body, "Bad request: the Host is not a valid DNS name.") {
			t.Errorf("bad host: %d %q", r.status, r.body)
		}
	})

	t.Run("static", func(t *testing.T) {
		r, l := get(t, "GET", "cas.kamui.test", "/guide/start.html", nil)
		if r.status != 200 || r.body != "<h1>cas start</h1>" || r.header.Get("Cache-Control") != "public, max-age=0, must-revalidate" ||
			r.header.Get(route.CacheMarkerHeader) != "" {
			t.Fatalf("content-addressed site: %d %q %v", r.status, r.body, r.header)
		}
		etag := r.header.Get("ETag")
		if l["delivery"] != "static" && l["delivery"] != "content-cache" {
			t.Errorf("log %v", l)
		}
		r, _ = get(t, "GET", "cas.kamui.test", "/guide/start.html", map[string]string{"If-None-Match": etag})
		if r.status != 304 {
			t.Errorf("If-None-Match %s: status %d, want 304", etag, r.status)
		}
		r, _ = get(t, "GET", "cas.kamui.test", "/no/such/page", nil)
		if r.status != 404 || r.body != "<h1>cas 404</h1>" {
			t.Errorf("missing path: %d %q, want the site's 404 page", r.status, r.body)
		}
		r, _ = get(t, "POST", "cas.kamui.test", "/", nil)
		if r.status != 405 || r.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("POST to a static site: %d %v", r.status, r.header)
		}
		// A marked content entry answers before routing, with the marker stripped; an
		// unmarked or forged one does not.
		r, l = get(t, "GET", "docs.kamui.test", "/precached.html", nil)
		if r.status != 200 || r.body != "FROM-CACHE" || r.header.Get(route.CacheMarkerHeader) != "" || l["kv_reads"] != 0.0 {
			t.Errorf("marked content entry: %d %q %v log %v", r.status, r.body, r.header, l)
		}
		r, _ = get(t, "GET", "docs.kamui.test", "/guide/start.html", nil)
		if r.status != 200 || r.body != "<h1>start</h1>" {
			t.Errorf("forged content entry: %d %q, want the object from R2", r.status, r.body)
		}
	})
}
