package router_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

func TestRouter_ForwardsValidContext(t *testing.T) {
	h := newHarness(t, newBackend(t, nil), nil)
	res, body := do(t, h.request(t, validContext(http.MethodGet, "req-1"), "/cart?item=3", nil))
	if res.StatusCode != http.StatusOK || body != "ok from backend" {
		t.Fatalf("got %d %q, want 200 from the backend", res.StatusCode, body)
	}
	got := h.backend.last()
	if got.URL.Path != "/cart" || got.URL.RawQuery != "item=3" {
		t.Errorf("backend saw %s?%s, want /cart?item=3", got.URL.Path, got.URL.RawQuery)
	}
	if got.Host != publicHost {
		t.Errorf("backend saw Host %q, want the public host %q", got.Host, publicHost)
	}
	if u, _ := h.resolved.Load().(route.Upstream); u.String() != upstream {
		t.Errorf("Resolve got %v, want %s", u, upstream)
	}
}

func TestRouter_RefusesBadContexts(t *testing.T) {
	b := newBackend(t, nil)
	h := newHarness(t, b, nil)
	otherKey := newSecret(t)

	cases := []struct {
		name   string
		reason string // the cause the access log must name
		build  func() *http.Request
	}{
		{"missing", "context signature missing", func() *http.Request {
			req, _ := http.NewRequest(http.MethodGet, h.front.URL+"/", nil)
			req.Host = publicHost
			return req
		}},
		{"signature removed", "context signature missing", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Del(route.HeaderContextSignature)
			return req
		}},
		{"wrong key", "context signature invalid", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			validContext(http.MethodGet, "r").SetHeaders(req.Header, otherKey)
			return req
		}},
		{"tampered app", "context signature invalid", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Set(route.HeaderApp, "other")
			return req
		}},
		{"tampered upstream", "context signature invalid", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Set(route.HeaderUpstream, "tenant-other/web:8080")
			return req
		}},
		{"tampered request id", "context signature invalid", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Set(route.HeaderRequestID, "r2")
			return req
		}},
		{"tampered host", "context signature invalid", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Set(route.HeaderHost, "other.tenant.test")
			return req
		}},
		{"replayed on another path", "context signature invalid", func() *http.Request {
			c := validContext(http.MethodGet, "r")
			c.Target = "/cart"
			return h.request(t, c, "/admin", nil)
		}},
		{"tampered method", "context signature invalid", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Method = http.MethodPost
			return req
		}},
		{"tampered time", "context signature invalid", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Set(route.HeaderContextTime, "1800000001")
			return req
		}},
		{"malformed time", "context malformed", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Set(route.HeaderContextTime, "soon")
			return req
		}},
		{"stale", "context stale", func() *http.Request {
			c := validContext(http.MethodGet, "r")
			c.Time = testNow.Add(-route.DefaultMaxSkew - time.Second)
			return h.request(t, c, "/", nil)
		}},
		{"future", "context from the future", func() *http.Request {
			c := validContext(http.MethodGet, "r")
			c.Time = testNow.Add(route.DefaultMaxSkew + time.Second)
			return h.request(t, c, "/", nil)
		}},
		{"invalid host", "context malformed", func() *http.Request {
			req := h.request(t, validContext(http.MethodGet, "r"), "/", nil)
			req.Header.Set(route.HeaderHost, "[::1]")
			return req
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, body := do(t, tc.build())
			if res.StatusCode != http.StatusForbidden || body != "403 forbidden\n" {
				t.Errorf("got %d %q, want the fixed 403", res.StatusCode, body)
			}
			if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", cc)
			}
			lines := h.logs.accessLines(t)
			if len(lines) != i+1 {
				t.Fatalf("%d access lines, want %d", len(lines), i+1)
			}
			last := lines[i]
			if last["outcome"] != "denied" || last["reason"] != tc.reason || last["status"] != 403.0 {
				t.Errorf("log line %v, want outcome denied, status 403, reason %q", last, tc.reason)
			}
			if _, ok := last["app"]; ok {
				t.Errorf("log line of a refused request names an app: %v", last)
			}
		})
	}
	if n := b.hits.Load(); n != 0 {
		t.Errorf("backend received %d requests, want none", n)
	}
}

func TestRouter_AcceptsSkewWithinBound(t *testing.T) {
	h := newHarness(t, newBackend(t, nil), func(c *router.Config) { c.MaxSkew = 5 * time.Minute })
	for _, d := range []time.Duration{-5 * time.Minute, 5 * time.Minute} {
		c := validContext(http.MethodGet, "r")
		c.Time = testNow.Add(d)
		if res, _ := do(t, h.request(t, c, "/", nil)); res.StatusCode != http.StatusOK {
			t.Errorf("context %s away: got %d, want 200", d, res.StatusCode)
		}
	}
}

func TestRouter_NamespaceAllowList(t *testing.T) {
	b := newBackend(t, nil)
	h := newHarness(t, b, nil)
	for _, up := range []string{"kube-system/dns:53", "default/api:443", "tenantshop/web:80"} {
		c := validContext(http.MethodGet, "r-"+up)
		c.Upstream = up
		res, body := do(t, h.request(t, c, "/", nil))
		if res.StatusCode != http.StatusForbidden || body != "403 forbidden\n" {
			t.Errorf("%s: got %d %q, want the fixed 403", up, res.StatusCode, body)
		}
	}
	if n := b.hits.Load(); n != 0 {
		t.Fatalf("backend received %d requests for refused namespaces", n)
	}
	for _, line := range h.logs.accessLines(t) {
		if line["outcome"] != "namespace_refused" {
			t.Errorf("log line %v, want outcome namespace_refused", line)
		}
	}
	c := validContext(http.MethodGet, "r-ok")
	c.Upstream = "tenant-blog/web:80"
	if res, _ := do(t, h.request(t, c, "/", nil)); res.StatusCode != http.StatusOK {
		t.Errorf("allowed namespace: got %d, want 200", res.StatusCode)
	}
}

func TestRouter_SignedButMalformedUpstreamIsBadGateway(t *testing.T) {
	b := newBackend(t, nil)
	h := newHarness(t, b, nil)
	c := validContext(http.MethodGet, "req-bad-upstream")
	c.Upstream = "not-an-upstream"
	res, body := do(t, h.request(t, c, "/", nil))
	if res.StatusCode != http.StatusBadGateway || !strings.Contains(body, "req-bad-upstream") {
		t.Errorf("got %d %q, want 502 naming the request id", res.StatusCode, body)
	}
	if b.hits.Load() != 0 {
		t.Error("backend was reached")
	}
}

func TestClusterResolve(t *testing.T) {
	got, err := router.ClusterResolve(route.Upstream{Namespace: "tenant-shop", Service: "web", Port: 8080})
	want := &url.URL{Scheme: "http", Host: "web.tenant-shop.svc.cluster.local:8080"}
	if err != nil || *got != *want {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
}

func TestNew_RequiresSecretAndPrefix(t *testing.T) {
	if _, err := router.New(router.Config{AllowedNamespacePrefix: nsPrefix}); err == nil {
		t.Error("New accepted an empty secret")
	}
	if _, err := router.New(router.Config{Secret: newSecret(t)}); err == nil {
		t.Error("New accepted an empty namespace prefix")
	}
}
