package router_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func TestRouter_ClientCannotSpoofHeaders(t *testing.T) {
	h := newHarness(t, newBackend(t, nil), nil)
	req := h.request(t, validContext(http.MethodGet, "req-real"), "/", nil)
	req.Header.Set("Kamui-Tenant", "spoofed")
	req.Header.Set("kamui-debug", "spoofed")
	req.Header.Set("X-Forwarded-For", "spoofed-client")
	req.Header.Set("X-Forwarded-Host", "spoofed.tenant.test")
	req.Header.Set("X-Forwarded-Proto", "gopher")
	req.Header.Set("X-Forwarded-Port", "spoofed-port")
	req.Header.Set("X-Forwarded-Prefix", "/spoofed")
	req.Header["x-forwarded-ssl"] = []string{"spoofed-on"} // not canonicalised on purpose
	req.Header.Set("Forwarded", "for=spoofed;host=spoofed")
	req.Header.Set("X-Real-Ip", "spoofed-client")
	req.Header.Set("X-Request-Id", "spoofed-id")
	req.Header.Set("Accept", "text/html") // an ordinary header passes untouched
	if res, _ := do(t, req); res.StatusCode != http.StatusOK {
		t.Fatalf("got %d, want 200", res.StatusCode)
	}

	got := h.backend.last().Header
	for name, values := range got {
		if route.IsContextHeader(name) {
			t.Errorf("backend received %s: %q", name, values)
		}
		for _, v := range values {
			if strings.Contains(v, "spoofed") {
				t.Errorf("backend received spoofed %s: %q", name, v)
			}
		}
	}
	want := map[string]string{
		"X-Request-Id":       "req-real",
		"X-Forwarded-Host":   publicHost,
		"X-Forwarded-Proto":  "https",
		"X-Forwarded-For":    "127.0.0.1",
		"Forwarded":          "",
		"X-Forwarded-Port":   "",
		"X-Forwarded-Prefix": "",
		"X-Real-Ip":          "",
		"Accept":             "text/html",
	}
	for name, v := range want {
		if g := got.Get(name); g != v {
			t.Errorf("backend saw %s = %q, want %q", name, g, v)
		}
	}
	if vs := got.Values("X-Forwarded-For"); len(vs) != 1 {
		t.Errorf("X-Forwarded-For = %q, want exactly the router's peer", vs)
	}
}

func TestRouter_StripsPlatformHeadersFromResponses(t *testing.T) {
	for _, shape := range responseShapes {
		t.Run(shape.name, func(t *testing.T) {
			want := shape.body("created")
			b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Kamui-Upstream", "leak")
				w.Header().Set("Kamui-Cache-Marker", "leak")
				w.Header().Set("X-Tenant", "kept")
				shape.serve(w, http.StatusCreated, want)
			})
			h := newHarness(t, b, nil)
			res, body := do(t, h.request(t, validContext(http.MethodPost, "r"), "/", strings.NewReader("x")))
			if res.StatusCode != http.StatusCreated || body != want {
				t.Fatalf("got %d and %d bytes of body, want the backend's 201 and its %d bytes", res.StatusCode, len(body), len(want))
			}
			for name := range res.Header {
				if route.IsContextHeader(name) {
					t.Errorf("response carries %s", name)
				}
			}
			if res.Header.Get("X-Tenant") != "kept" {
				t.Error("the tenant's own response header was dropped")
			}
		})
	}
}

// Header names with underscores never reach the tenant, on any path: CGI-style stacks map
// X_Forwarded_Host and X-Forwarded-Host to the same HTTP_X_FORWARDED_HOST, so a client's
// underscore spelling would sit beside (or override) the router's own. nginx drops them too.
func TestRouter_DropsHeaderNamesWithUnderscores(t *testing.T) {
	spoofed := []string{"X_Forwarded_Host", "X_Forwarded_For", "X_Forwarded_Proto", "X_Real_IP", "X_Request_Id", "Kamui_App", "My_Header"}
	for _, p := range requestShapes {
		t.Run(p.name, func(t *testing.T) {
			h := newHarness(t, newBackend(t, nil), nil)
			req := p.request(t, h, "req-underscore", "/")
			for _, name := range spoofed {
				req.Header[name] = []string{"spoofed"} // sent as written, not canonicalised
			}
			req.Header.Set("X-Tenant-Header", "kept") // dashes pass as before
			if res, _ := do(t, req); res.StatusCode != http.StatusOK {
				t.Fatalf("got %d, want 200", res.StatusCode)
			}
			got := h.backend.last().Header
			for name, values := range got {
				if strings.Contains(name, "_") {
					t.Errorf("backend received %s: %q", name, values)
				}
			}
			if v := got.Get("X-Forwarded-Host"); v != publicHost {
				t.Errorf("X-Forwarded-Host = %q, want the verified %q", v, publicHost)
			}
			if v := got.Get("X-Tenant-Header"); v != "kept" {
				t.Errorf("X-Tenant-Header = %q, want the client's value", v)
			}
		})
	}
}

// The client gets the tenant's head as the tenant wrote it: no Server or Content-Type of the
// router's own, neither beside the tenant's nor instead of them, on a proxied answer (with a
// body, where a default Content-Type would go) and on a HEAD. Date is the one field the router
// sets, once, in place of the tenant's (copyResponseHead says why).
func TestRouter_AddsNoHeadersOfItsOwn(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(http.Header)
		want map[string][]string
	}{
		{"the tenant sends none", func(h http.Header) {
			h["Date"] = nil         // net/http adds one otherwise
			h["Content-Type"] = nil // and sniffs one
		}, map[string][]string{"Server": nil, "Content-Type": nil}},
		{"the tenant sends its own", func(h http.Header) {
			h.Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
			h.Set("Server", "tenant/1.0")
			h.Set("Content-Type", "application/x-tenant")
		}, map[string][]string{"Server": {"tenant/1.0"}, "Content-Type": {"application/x-tenant"}}},
	} {
		for _, run := range methodsAndShapes() {
			t.Run(c.name+"/"+run.method+"/"+run.shape.name, func(t *testing.T) {
				h := newHarness(t, newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
					c.set(w.Header())
					run.shape.serve(w, http.StatusOK, run.shape.body("a body without a type"))
				}), nil)
				before := time.Now().Add(-time.Second)
				res, _ := do(t, h.request(t, validContext(run.method, "req-own-head"), "/", nil))
				if res.StatusCode != http.StatusOK {
					t.Fatalf("got %d, want 200", res.StatusCode)
				}
				for name, want := range c.want {
					if got := res.Header.Values(name); !slices.Equal(got, want) {
						t.Errorf("%s: got %q, want %q", name, got, want)
					}
				}
				dates := res.Header.Values("Date")
				if len(dates) != 1 {
					t.Fatalf("Date: got %q, want the router's, once", dates)
				}
				if d, err := http.ParseTime(dates[0]); err != nil || d.Before(before.Truncate(time.Second)) {
					t.Errorf("Date %q: want the time the router answered (%v)", dates[0], err)
				}
			})
		}
	}
}
