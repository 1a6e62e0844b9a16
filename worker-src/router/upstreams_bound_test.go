package router_test

import (
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

// TestUpstreams_PoolDoesNotKeepEveryAddress: the upstream is a tenant's value (a route's
// dynamic.upstream, "namespace/service:port"), so the set of addresses one router sees over
// its life is whatever tenants write, not a small fixed set. An upstream client nobody holds a
// connection to must not be kept for ever, or cycling through ports and service names grows
// the router's memory without bound.
func TestUpstreams_PoolDoesNotKeepEveryAddress(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Connection", "close") // no idle connection keeps a client in use
		w.WriteHeader(http.StatusNoContent)
	})
	backendAddr := b.URL[len("http://"):]
	h := newHarness(t, b, func(c *router.Config) {
		c.Resolve = func(u route.Upstream) (*url.URL, error) {
			return &url.URL{Scheme: "http", Host: u.ClusterAddr()}, nil // a distinct address per upstream
		}
		c.Dial = func(string) (net.Conn, error) { return net.Dial("tcp", backendAddr) }
	})
	const distinct = 3000
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for port := 1; port <= distinct; port++ {
		c := validContext(http.MethodGet, "req-"+strconv.Itoa(port))
		c.Upstream = "tenant-shop/web:" + strconv.Itoa(port)
		req := h.request(t, c, "/", nil)
		req.Close = true
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("port %d: got %d, want 204", port, res.StatusCode)
		}
	}
	if n := router.UpstreamClients(h.rt); n > distinct/2 {
		t.Errorf("the router keeps %d upstream clients after %d distinct upstreams, each used once", n, distinct)
	}
}
