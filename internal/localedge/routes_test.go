package localedge

import (
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

func TestScriptFor(t *testing.T) {
	routes := []cfapi.Route{
		{Pattern: "*.kamui.test/*", Script: "edge"},
		{Pattern: "api.kamui.test/*", Script: "api"},
		{Pattern: "*.kamui.test/static/*", Script: "static"},
		{Pattern: "off.kamui.test/*"}, // no script: exempt
		{Pattern: "kamui.test/exact", Script: "exact"},
	}
	hostnames := []cfapi.CustomHostnameStatus{
		{CustomHostname: cfapi.CustomHostname{Hostname: "www.shop.example", CustomOriginServer: "origin.kamui.test"}, Status: "active"},
		{CustomHostname: cfapi.CustomHostname{Hostname: "pending.example", CustomOriginServer: "origin.kamui.test"}, Status: "pending"},
	}
	for _, tc := range []struct{ host, path, want string }{
		{"shop.kamui.test", "/", "edge"},
		{"a.b.kamui.test", "/x", "edge"},
		{"api.kamui.test", "/v1", "api"},                // exact host beats the wildcard
		{"shop.kamui.test", "/static/app.js", "static"}, // longer pattern wins
		{"off.kamui.test", "/", ""},
		{"kamui.test", "/exact", "exact"},
		{"kamui.test", "/exact/more", ""},
		{"kamui.test", "/", ""},           // "*.kamui.test" needs a subdomain
		{"www.shop.example", "/", "edge"}, // active custom hostname, via its origin server
		{"pending.example", "/", ""},      // not active yet
		{"stranger.example", "/", ""},     // outside the zone
		{"shop.kamui.test.evil", "/", ""},
	} {
		if got := scriptFor(tc.host, tc.path, "kamui.test", routes, hostnames); got != tc.want {
			t.Errorf("scriptFor(%s%s) = %q, want %q", tc.host, tc.path, got, tc.want)
		}
	}
}

func TestScriptFor_CatchAllRouteServesCustomHostnames(t *testing.T) {
	routes := []cfapi.Route{{Pattern: "*/*", Script: "edge"}}
	hostnames := []cfapi.CustomHostnameStatus{{CustomHostname: cfapi.CustomHostname{Hostname: "www.shop.example"}, Status: "active"}}
	if got := scriptFor("www.shop.example", "/", "kamui.test", routes, hostnames); got != "edge" {
		t.Errorf("custom hostname under */*: %q, want edge", got)
	}
	if got := scriptFor("other.example", "/", "kamui.test", routes, hostnames); got != "" {
		t.Errorf("a host that is neither in the zone nor a custom hostname: %q, want none", got)
	}
}

func TestNormalizeHost(t *testing.T) {
	for in, want := range map[string]string{"Shop.Kamui.Test:8788": "shop.kamui.test", "shop.kamui.test.": "shop.kamui.test", "[::1]:80": "::1"} {
		if got := normalizeHost(in); got != want {
			t.Errorf("normalizeHost(%q) = %q, want %q", in, got, want)
		}
	}
}
