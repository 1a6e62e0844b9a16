package router_test

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

func TestRouter_SlowUpstreamIsGatewayTimeout(t *testing.T) {
	release := make(chan struct{})
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		select { // never answers in time; lets go when the router gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	h := newHarness(t, b, func(c *router.Config) { c.ResponseHeaderTimeout = 50 * time.Millisecond })
	res, body := do(t, h.request(t, validContext(http.MethodGet, "req-slow"), "/", nil))
	assertGatewayFailure(t, res, body, http.StatusGatewayTimeout, "504 gateway timeout (request id req-slow)\n")
	assertLastOutcome(t, h, "timeout", 504)
}

func TestRouter_ClosedPortIsBadGateway(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, newBackend(t, nil), func(c *router.Config) {
		c.Resolve = func(route.Upstream) (*url.URL, error) {
			return &url.URL{Scheme: "http", Host: closedAddr}, nil
		}
	})
	res, body := do(t, h.request(t, validContext(http.MethodGet, "req-closed"), "/", nil))
	assertGatewayFailure(t, res, body, http.StatusBadGateway, "502 bad gateway (request id req-closed)\n")
	assertLastOutcome(t, h, "unreachable", 502)
}

// timeoutError is what a dialer returns when connecting takes too long.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestRouter_DialTimeoutIsGatewayTimeout(t *testing.T) {
	// A real dial timeout needs an address that drops packets, which loopback cannot provide;
	// the Dial hook returns the error such a dial produces.
	h := newHarness(t, newBackend(t, nil), func(c *router.Config) {
		c.Dial = func(string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: timeoutError{}}
		}
	})
	res, body := do(t, h.request(t, validContext(http.MethodGet, "req-dial"), "/", nil))
	assertGatewayFailure(t, res, body, http.StatusGatewayTimeout, "504 gateway timeout (request id req-dial)\n")
	assertLastOutcome(t, h, "timeout", 504)
}

func TestRouter_BrokenUpstreamIsBadGateway(t *testing.T) {
	up := newRawUpstream(t, func(conn net.Conn, _ int, _ *http.Request) {
		_, _ = io.WriteString(conn, "this is not HTTP\r\n\r\n") // the router's answer is checked
	})
	h := newHarnessTo(t, up.url(), nil)
	res, body := do(t, h.request(t, validContext(http.MethodGet, "req-broken"), "/", nil))
	assertGatewayFailure(t, res, body, http.StatusBadGateway, "502 bad gateway (request id req-broken)\n")
	assertLastOutcome(t, h, "upstream_error", 502)
}

func TestRouter_ErrorHandlerHook(t *testing.T) {
	var got *router.Failure
	h := newHarness(t, newBackend(t, nil), func(c *router.Config) {
		c.ErrorHandler = func(ctx *fasthttp.RequestCtx, f *router.Failure) {
			got = f
			ctx.SetStatusCode(f.Status)
		}
	})
	c := validContext(http.MethodGet, "req-hook")
	c.Upstream = "kube-system/dns:53"
	res, _ := do(t, h.request(t, c, "/", nil))
	if res.StatusCode != http.StatusForbidden || got == nil ||
		got.Outcome != router.OutcomeNamespaceRefused || got.RequestID != "req-hook" {
		t.Fatalf("status %d, failure %+v; want the hook called with a namespace refusal", res.StatusCode, got)
	}
}

func assertGatewayFailure(t *testing.T, res *http.Response, body string, status int, wantBody string) {
	t.Helper()
	if res.StatusCode != status || body != wantBody {
		t.Errorf("got %d %q, want %d %q", res.StatusCode, body, status, wantBody)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", cc)
	}
}

func assertLastOutcome(t *testing.T, h *harness, outcome string, status int) {
	t.Helper()
	lines := h.logs.accessLines(t)
	if len(lines) == 0 {
		t.Fatal("no access line")
	}
	last := lines[len(lines)-1]
	if last["outcome"] != outcome || last["status"] != float64(status) || last["reason"] == nil {
		t.Errorf("log line %v, want outcome %s, status %d and a reason", last, outcome, status)
	}
}
