package workertest

import (
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// TestNameFilterInWorkerd runs the edge Worker in workerd with both namespaces' name filters
// seeded as binary KV values, as the provider writes them: the adapter must read them as bytes
// (a text read would garble them into "no filter"). Unknown platform labels and custom hosts are
// then refused with the fixed 404 and no per-host KV read; known hosts are served. Its own host,
// so that the shared one keeps running without filters.
func TestNameFilterInWorkerd(t *testing.T) {
	echo := startServer(echoHandler())
	defer func() { _ = echo.Close() }() // the test is over: closing says nothing it needs
	cfg := hostConfig
	cfg.KV = map[string]map[string]string{
		"ROUTES":  {"shop": mustRecord(dyn("shop", "tunnel.kamui.test", 5000))},
		"DOMAINS": {"www.shop.example": mustMapping(route.DomainMapping{App: "shop", Status: route.StatusActive})},
	}
	cfg.KVBytes = map[string]map[string][]byte{
		"ROUTES":  {route.FilterKey: route.BuildFilter([]string{"shop"})},
		"DOMAINS": {route.FilterKey: route.BuildFilter([]string{"www.shop.example"})},
	}
	cfg.Cache, cfg.FailKV, cfg.FailCache = nil, nil, nil
	cfg.Origins = map[string]string{"tunnel.kamui.test": "http://" + echo.Addr().String()}
	h := startOwnHost(t, cfg, 2*time.Minute)

	// The first requests read each filter once (a KV read of their own line).
	if status, l := getRoot(t, h, "shop."+platform); status != 200 || l["kv_reads"] != 2.0 {
		t.Fatalf("known platform host: %d %v", status, l)
	}
	if status, l := getRoot(t, h, "www.shop.example"); status != 200 || l["kv_reads"] != 2.0 {
		t.Fatalf("known custom host: %d %v", status, l)
	}
	for _, host := range []string{"r4nd0m-a." + platform, "r4nd0m-b." + platform, "www.nobody.example"} {
		status, l := getRoot(t, h, host)
		if status != 404 || l["route_source"] != "filter" || l["kv_reads"] != 0.0 {
			t.Errorf("%s: %d %v; want the fixed 404 from the filter, no KV read", host, status, l)
		}
	}
	// A filter that did not decode would have been logged (edge.filter) by the request that
	// read it, before that request's own line.
	for _, l := range h.Logs() {
		if strings.Contains(l, `"edge.filter"`) {
			t.Errorf("an intact filter was reported unusable: %s", l)
		}
	}
}
