package localedge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

func TestServiceTarget(t *testing.T) {
	withRouter := &tunnelHandler{routerURL: func() string { return "http://127.0.0.1:9999" }}
	withoutRouter := &tunnelHandler{routerURL: func() string { return "" }}
	for _, tc := range []struct {
		h          *tunnelHandler
		service    string
		wantTarget string
		wantStatus int
	}{
		{withRouter, "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080", "http://127.0.0.1:9999", 0},
		{withoutRouter, "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080", "", http.StatusBadGateway},
		{withRouter, "http://127.0.0.1:8081", "http://127.0.0.1:8081", 0},
		{withRouter, "http://localhost:8081", "http://localhost:8081", 0},
		{withRouter, "http_status:404", "", http.StatusNotFound},
		{withRouter, "http_status:9", "", http.StatusBadGateway},
		{withRouter, "http://web.tenant-shop.svc.cluster.local:8080", "", http.StatusBadGateway},
		{withRouter, "tcp://127.0.0.1:22", "", http.StatusBadGateway},
		// cloudflared refuses a service with a path, even "/".
		{withRouter, "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080/", "", http.StatusBadGateway},
		{withRouter, "http://127.0.0.1:8081/app", "", http.StatusBadGateway},
	} {
		target, status, _ := tc.h.serviceTarget(tc.service)
		got := ""
		if target != nil {
			got = target.String()
		}
		if got != tc.wantTarget || status != tc.wantStatus {
			t.Errorf("serviceTarget(%q) = %q, %d; want %q, %d", tc.service, got, status, tc.wantTarget, tc.wantStatus)
		}
	}
}

func TestIngressMatching(t *testing.T) {
	for _, tc := range []struct {
		pattern, host string
		want          bool
	}{
		{"", "anything.test", true},
		{"*", "anything.test", true},
		{"origin.kamui.test", "origin.kamui.test", true},
		{"Origin.Kamui.Test", "origin.kamui.test", true},
		{"origin.kamui.test", "other.kamui.test", false},
		{"*.kamui.test", "a.kamui.test", true},
		{"*.kamui.test", "kamui.test", false},
	} {
		if got := ingressHostMatches(tc.pattern, tc.host); got != tc.want {
			t.Errorf("ingressHostMatches(%q, %q) = %v", tc.pattern, tc.host, got)
		}
	}
	if !ingressPathMatches("", "/x") || !ingressPathMatches("^/api/", "/api/v1") || ingressPathMatches("^/api/", "/web") || ingressPathMatches("(", "/") {
		t.Error("ingress path matching: regexp semantics, empty matches all, invalid matches nothing")
	}
}

// TestTunnelHandler_ZoneCacheOnForProxiedHostnames: a fetch to a hostname proxied on the zone
// goes through the zone cache (and a Cache Rule on the zone applies to it); an unproxied
// tunnel CNAME and loopback pass-through do not.
func TestTunnelHandler_ZoneCacheOnForProxiedHostnames(t *testing.T) {
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = fmt.Fprintf(w, "%s #%d", r.Host, hits.Add(1)) // the client checks what arrives
	}))
	defer backend.Close()
	api, err := cfapi.New(cfapi.Config{StateDir: t.TempDir(), ZoneName: "kamui.test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(t, "start the API", err)
	hs := httptest.NewServer(api)
	defer hs.Close()
	id := api.Identity()
	client := cloudflare.NewClient(option.WithBaseURL(hs.URL+cfapi.APIPrefix+"/"), option.WithAPIToken(id.APIToken), option.WithMaxRetries(0))
	ctx := context.Background()
	tun, err := client.ZeroTrust.Tunnels.Cloudflared.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID: cloudflare.F(id.AccountID), Name: cloudflare.F("t"), ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare)})
	must(t, "create tunnel", err)
	_, err = client.ZeroTrust.Tunnels.Cloudflared.Configurations.Update(ctx, tun.ID, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: cloudflare.F(id.AccountID),
		Config: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cloudflare.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{Hostname: cloudflare.F(""), Service: cloudflare.F(backend.URL)},
			}),
		}),
	})
	must(t, "configure tunnel", err)
	for name, proxied := range map[string]bool{"origin": true, "grey": false} {
		_, err = client.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: cloudflare.F(id.ZoneID), Body: dns.CNAMERecordParam{
			Name: cloudflare.F(name), Type: cloudflare.F(dns.CNAMERecordTypeCNAME), Content: cloudflare.F(tun.ID + kdcf.TunnelTargetSuffix),
			Proxied: cloudflare.F(proxied), TTL: cloudflare.F(dns.TTL1)}})
		must(t, "create CNAME "+name, err)
	}
	cache := newZoneCache(zoneCacheConfig{Rules: func() []cfapi.RulesetRule {
		rs, _ := api.Entrypoint(cfapi.CachePhase)
		return rs.Rules
	}})
	h := newTunnelHandler(api, func() string { return "" }, cache)
	fetch := func(host string) (string, string) {
		req := httptest.NewRequest(http.MethodGet, "/assets/app.js", nil)
		req.Header.Set(edgeruntime.OriginHostHeader, host)
		req.Header.Set(edgeruntime.OriginSchemeHeader, "https")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Header().Get(headerCacheStatus), rec.Body.String()
	}
	loopback := backend.Listener.Addr().String()
	for _, tc := range []struct{ host, status, body string }{
		{"origin.kamui.test", cacheMiss, "origin.kamui.test #1"},
		{"origin.kamui.test", cacheHit, "origin.kamui.test #1"},
		{"grey.kamui.test", "", "grey.kamui.test #2"},
		{"grey.kamui.test", "", "grey.kamui.test #3"},
		{loopback, "", loopback + " #4"},
		{loopback, "", loopback + " #5"},
	} {
		if status, body := fetch(tc.host); status != tc.status || body != tc.body {
			t.Errorf("%s: Cf-Cache-Status %q, body %q; want %q, %q", tc.host, status, body, tc.status, tc.body)
		}
	}
	// A Cache Rule on the zone that bypasses the cache for the origin takes effect at once.
	kc := &kdcf.Client{Rulesets: client.Rulesets}
	_, err = kc.CreateBypassCacheRule(ctx, id.ZoneID, kdcf.BypassCacheRule{Ref: "r", Hosts: []string{"origin.kamui.test"}})
	must(t, "create the Cache Rule", err)
	if status, body := fetch("origin.kamui.test"); status != cacheDynamic || body != "origin.kamui.test #6" {
		t.Errorf("with the Cache Rule: Cf-Cache-Status %q, body %q; want DYNAMIC from the origin", status, body)
	}
}
