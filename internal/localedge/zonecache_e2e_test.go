package localedge

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/cache"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/shared"
	"github.com/cloudflare/cloudflare-go/v7/workers"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// cacheableTenant is a loopback backend that answers every request with its own body and
// Cache-Control: public, max-age=86400 (what a tenant's static assets typically say), and
// counts the requests it saw.
type cacheableTenant struct {
	*httptest.Server
	name string
	hits atomic.Int32
}

func newCacheableTenant(t *testing.T, name string) *cacheableTenant {
	t.Helper()
	ct := &cacheableTenant{name: name}
	ct.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct.hits.Add(1)
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = fmt.Fprintf(w, "console.log(%q); // %s", ct.name, r.URL.Path) // the client checks what arrives
	}))
	t.Cleanup(ct.Close)
	return ct
}

func (ct *cacheableTenant) port() int {
	_, p, _ := net.SplitHostPort(ct.Listener.Addr().String())
	n, _ := strconv.Atoi(p)
	return n
}

func (ct *cacheableTenant) body(path string) string {
	return fmt.Sprintf("console.log(%q); // %s", ct.name, path)
}

// tunnelToOrigin creates a tunnel whose ingress sends origin.kamui.test to service, and the
// proxied CNAME that routes origin.kamui.test into it (what kamuidash_tunnel creates, without
// its Cache Rule).
func tunnelToOrigin(t *testing.T, api *cloudflare.Client, account, zone, service string) {
	t.Helper()
	ctx := context.Background()
	tun, err := api.ZeroTrust.Tunnels.Cloudflared.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID: cloudflare.F(account), Name: cloudflare.F("kamuidash"), ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare),
	})
	must(t, "create tunnel", err)
	_, err = api.ZeroTrust.Tunnels.Cloudflared.Configurations.Update(ctx, tun.ID, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: cloudflare.F(account),
		Config: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cloudflare.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{Hostname: cloudflare.F("origin.kamui.test"), Service: cloudflare.F(service)},
				{Hostname: cloudflare.F(""), Service: cloudflare.F("http_status:404")},
			}),
		}),
	})
	must(t, "configure tunnel", err)
	_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: cloudflare.F(zone), Body: dns.CNAMERecordParam{
		Name: cloudflare.F("origin"), Type: cloudflare.F(dns.CNAMERecordTypeCNAME),
		Content: cloudflare.F(tun.ID + kdcf.TunnelTargetSuffix), Proxied: cloudflare.F(true), TTL: cloudflare.F(dns.TTL1),
	}})
	must(t, "create the origin CNAME", err)
}

// TestLocalEdge_ZoneCacheKeepsTenantsApart runs two apps behind the same tunnel origin through
// the whole local edge (the edge Worker built from this checkout in workerd, the tunnel
// emulation with its zone cache, the router, two loopback backends). Both apps answer the
// same path with Cache-Control: public, max-age=86400 and their own body. The zone has no
// Cache Rule for the origin, so the Worker's own opt-out (fetch with cache: "no-store") is
// all that keeps one tenant's answer from being served to the other: every request must get
// its own app's body and reach its own backend. (Removing cache: "no-store" from
// worker-src/edge/js/worker.mjs makes this test fail: the second app gets the first one's
// script from the zone cache.)
func TestLocalEdge_ZoneCacheKeepsTenantsApart(t *testing.T) {
	requireRuntime(t)
	workerDir := buildEdgeWorker(t)
	tenants := map[string]*cacheableTenant{"shop": newCacheableTenant(t, "shop"), "blog": newCacheableTenant(t, "blog")}

	edge := startEdge(t, t.TempDir(), "--router")
	api := edge.client()
	ctx := context.Background()
	account, zone := edge.env["KAMUIDASH_ACCOUNT_ID"], edge.env["KAMUIDASH_ZONE_ID"]
	acct := cloudflare.F(account)

	namespace := func(title string) string {
		ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F(title)})
		must(t, "create namespace "+title, err)
		return ns.ID
	}
	routesNS, domainsNS := namespace("routes"), namespace("domains")
	for app, backend := range tenants {
		record, _, err := route.EncodeRecord(route.Record{App: app, Status: route.StatusActive, Kind: route.KindDynamic,
			Dynamic: &route.Dynamic{Origin: "origin.kamui.test", Upstream: "tenant-" + app + "/web:" + strconv.Itoa(backend.port()), TimeoutMS: 5000}})
		must(t, "encode record "+app, err)
		_, err = api.KV.Namespaces.Values.Update(ctx, routesNS, app, kv.NamespaceValueUpdateParams{
			AccountID: acct, Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString(string(record))),
		})
		must(t, "write the route of "+app, err)
	}
	uploadEdgeWorker(t, api, account, workerDir, routesNS, domainsNS)
	_, err := api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: cloudflare.F(zone), Pattern: cloudflare.F("*.kamui.test/*"), Script: cloudflare.F("kamuidash-edge")})
	must(t, "create route", err)
	tunnelToOrigin(t, api, account, zone, "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080")

	const asset = "/assets/app.js"
	edge.eventually(t, "the first app answers through the router", "shop.kamui.test", asset, func(s int, b string) bool {
		return s == 200 && b == tenants["shop"].body(asset)
	})
	sent := map[string]int32{"shop": tenants["shop"].hits.Load(), "blog": tenants["blog"].hits.Load()}
	for round := range 3 {
		for _, app := range []string{"blog", "shop"} {
			status, body := edge.get(t, app+".kamui.test", asset)
			if want := tenants[app].body(asset); status != 200 || body != want {
				t.Errorf("round %d, %s.kamui.test%s: HTTP %d %q; want %q (its own app's script)", round, app, asset, status, body, want)
			}
			sent[app]++
		}
	}
	for app, backend := range tenants {
		if got := backend.hits.Load(); got != sent[app] {
			t.Errorf("the %s backend saw %d requests, want %d: some were answered from a cache", app, got, sent[app])
		}
	}
}

// uploadEdgeWorker uploads the built edge Worker with the bindings the provider gives it.
func uploadEdgeWorker(t *testing.T, api *cloudflare.Client, account, workerDir, routesNS, domainsNS string) {
	t.Helper()
	var parts []workerPart
	for _, m := range []struct{ name, ct string }{
		{"worker.mjs", "application/javascript+module"},
		{"wasm_exec.js", "application/javascript+module"},
		{"edge.wasm", "application/wasm"},
	} {
		b, err := os.ReadFile(filepath.Join(workerDir, m.name))
		must(t, "read "+m.name, err)
		parts = append(parts, workerPart{m.name, m.ct, b})
	}
	ct, body := workerUpload(t, map[string]any{
		"main_module":         "worker.mjs",
		"compatibility_date":  route.WorkerCompatibilityDate,
		"compatibility_flags": route.WorkerCompatibilityFlags(),
		"bindings": []map[string]any{
			{"type": "kv_namespace", "name": "ROUTES", "namespace_id": routesNS},
			{"type": "kv_namespace", "name": "DOMAINS", "namespace_id": domainsNS},
			{"type": "r2_bucket", "name": "STATIC", "bucket_name": "kamuidash-static"},
			{"type": "plain_text", "name": "PLATFORM_DOMAIN", "text": "kamui.test"},
			{"type": "plain_text", "name": "FRESHNESS_BUDGET_SECONDS", "text": "120"},
			{"type": "plain_text", "name": "UPSTREAM_TIMEOUT_MS", "text": "30000"},
			{"type": "plain_text", "name": "LOG_SAMPLE_RATE", "text": "1"},
			{"type": "secret_text", "name": "SIGNING_SECRET", "text": "zone-cache-test-signing-secret-0123456789"},
			{"type": "secret_text", "name": "CACHE_MARKER", "text": "zone-cache-test-marker-0123"},
		},
	}, parts...)
	_, err := api.Workers.Scripts.Update(context.Background(), "kamuidash-edge", workers.ScriptUpdateParams{AccountID: cloudflare.F(account)}, option.WithRequestBody(ct, body))
	must(t, "upload the edge Worker", err)
}

// leakyWorkerJS forwards every request to the shared origin URL with the tenant in a header
// and without opting out of the cache: the Worker the zone Cache Rule exists for.
const leakyWorkerJS = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    const r = await fetch("https://origin.kamui.test" + url.pathname, { headers: { "X-Tenant": url.hostname } });
    return new Response(await r.text(), { headers: { "X-Subrequest-Cache": r.headers.get("cf-cache-status") || "none" } });
  },
};
`

// TestLocalEdge_CacheRuleIsASecondLayer uploads a Worker that does not opt out of the cache
// and forwards two hosts to the same origin URL. Without a Cache Rule the zone cache hands the
// first host's answer to the second (as Cloudflare's would); a purge by URL through the API
// drops it; with the tunnel's bypass Cache Rule (written by the provider's own client) every
// host gets its own answer, DYNAMIC, even though the Worker still does not opt out.
func TestLocalEdge_CacheRuleIsASecondLayer(t *testing.T) {
	requireRuntime(t)
	var hits atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = io.WriteString(w, "for "+r.Header.Get("X-Tenant"))
	}))
	defer origin.Close()

	edge := startEdge(t, t.TempDir())
	api := edge.client()
	ctx := context.Background()
	account, zone := edge.env["KAMUIDASH_ACCOUNT_ID"], edge.env["KAMUIDASH_ZONE_ID"]
	ct, body := workerUpload(t, map[string]any{"main_module": "worker.mjs", "compatibility_date": route.WorkerCompatibilityDate},
		workerPart{"worker.mjs", "application/javascript+module", []byte(leakyWorkerJS)})
	_, err := api.Workers.Scripts.Update(ctx, "leaky", workers.ScriptUpdateParams{AccountID: cloudflare.F(account)}, option.WithRequestBody(ct, body))
	must(t, "upload the Worker", err)
	_, err = api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: cloudflare.F(zone), Pattern: cloudflare.F("*.kamui.test/*"), Script: cloudflare.F("leaky")})
	must(t, "create route", err)
	tunnelToOrigin(t, api, account, zone, origin.URL)

	const asset = "/assets/app.js"
	type answer struct{ body, cacheStatus string }
	get := func(host string) answer {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, edge.env["KAMUIDASH_EDGE_URL"]+asset, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		must(t, "GET "+host, err)
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return answer{string(b), resp.Header.Get("X-Subrequest-Cache")}
	}
	edge.eventually(t, "the Worker answers", "a.kamui.test", "/warm-up.html", func(s int, b string) bool { return s == 200 && b == "for a.kamui.test" })

	// Without the rule: the zone cache is keyed by URL, so b gets a's answer.
	if got := get("a.kamui.test"); got != (answer{"for a.kamui.test", "MISS"}) {
		t.Errorf("a, first: %+v", got)
	}
	if got := get("b.kamui.test"); got != (answer{"for a.kamui.test", "HIT"}) {
		t.Errorf("b without the Cache Rule: %+v; want a's cached answer (the zone cache must model the leak)", got)
	}
	// A purge by URL through the API drops the entry.
	_, err = api.Cache.Purge(ctx, cache.CachePurgeParams{ZoneID: cloudflare.F(zone), Body: cache.CachePurgeParamsBodyCachePurgeSingleFile{
		Files: cloudflare.F([]string{"https://origin.kamui.test" + asset}),
	}})
	must(t, "purge by URL", err)
	if got := get("b.kamui.test"); got != (answer{"for b.kamui.test", "MISS"}) {
		t.Errorf("b after the purge: %+v", got)
	}

	// With the tunnel's Cache Rule the cache is bypassed for the origin host.
	rc := &kdcf.Client{Rulesets: api.Rulesets}
	_, err = rc.CreateBypassCacheRule(ctx, zone, kdcf.BypassCacheRule{Ref: "kamuidash_tunnel_test", Description: "test", Hosts: []string{"origin.kamui.test"}})
	must(t, "create the bypass Cache Rule", err)
	before := hits.Load()
	for range 2 {
		for _, host := range []string{"a.kamui.test", "b.kamui.test"} {
			if got := get(host); got != (answer{"for " + host, "DYNAMIC"}) {
				t.Errorf("%s with the Cache Rule: %+v; want its own answer, DYNAMIC", host, got)
			}
		}
	}
	if n := hits.Load() - before; n != 4 {
		t.Errorf("with the Cache Rule the origin saw %d of 4 requests", n)
	}
}
