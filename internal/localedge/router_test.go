package localedge

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/shared"
	"github.com/cloudflare/cloudflare-go/v7/workers"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// buildEdgeWorker builds the real edge Worker with scripts/build-worker.sh.
func buildEdgeWorker(t *testing.T) string {
	t.Helper()
	root, err := findRepoRoot()
	must(t, "find the repo root", err)
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "build-worker.sh"), out)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build-worker.sh: %v\n%s", err, b)
	}
	return out
}

// TestLocalEdge_EdgeWorkerThroughRouter runs the real path: the edge Worker (Go Wasm) in
// workerd resolves the Host from KV, signs the context and forwards through the emulated
// tunnel to the router the local edge started, which verifies it and forwards to the tenant
// service on loopback.
func TestLocalEdge_EdgeWorkerThroughRouter(t *testing.T) {
	requireRuntime(t)
	workerDir := buildEdgeWorker(t)
	tenant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "tenant host=%s path=%s", r.Host, r.URL.Path) // the client checks what arrives
	}))
	defer tenant.Close()
	_, tenantPort, _ := net.SplitHostPort(tenant.Listener.Addr().String())
	port, _ := strconv.Atoi(tenantPort)

	edge := startEdge(t, t.TempDir(), "--router", "--auto-validate", "1ms")
	api := edge.client()
	ctx := context.Background()
	acct := cloudflare.F(edge.env["KAMUIDASH_ACCOUNT_ID"])
	zone := cloudflare.F(edge.env["KAMUIDASH_ZONE_ID"])

	namespace := func(title string) string {
		ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F(title)})
		must(t, "create namespace "+title, err)
		return ns.ID
	}
	routesNS, domainsNS := namespace("routes"), namespace("domains")
	put := func(ns, key string, value []byte) {
		_, err := api.KV.Namespaces.Values.Update(ctx, ns, key, kv.NamespaceValueUpdateParams{
			AccountID: acct, Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString(string(value))),
		})
		must(t, "write "+key, err)
	}
	record, _, err := route.EncodeRecord(route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindDynamic,
		Dynamic: &route.Dynamic{Origin: "origin.kamui.test", Upstream: "tenant-shop/web:" + strconv.Itoa(port), TimeoutMS: 5000}})
	must(t, "encode record", err)
	put(routesNS, "shop", record)
	mapping, _, err := route.EncodeDomainMapping(route.DomainMapping{App: "shop", Status: route.StatusActive})
	must(t, "encode mapping", err)
	put(domainsNS, "www.shop.example", mapping)

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
	uploadEdge := func(signingSecret string) {
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
				{"type": "secret_text", "name": "SIGNING_SECRET", "text": signingSecret},
				{"type": "secret_text", "name": "CACHE_MARKER", "text": "local-edge-test-marker-0123"},
			},
		}, parts...)
		_, err := api.Workers.Scripts.Update(ctx, "kamuidash-edge", workers.ScriptUpdateParams{AccountID: acct}, option.WithRequestBody(ct, body))
		must(t, "upload the edge Worker", err)
	}
	uploadEdge("local-edge-test-signing-secret-0123456789")
	_, err = api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: zone, Pattern: cloudflare.F("*.kamui.test/*"), Script: cloudflare.F("kamuidash-edge")})
	must(t, "create route", err)

	tun, err := api.ZeroTrust.Tunnels.Cloudflared.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID: acct, Name: cloudflare.F("kamuidash"), ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare),
	})
	must(t, "create tunnel", err)
	_, err = api.ZeroTrust.Tunnels.Cloudflared.Configurations.Update(ctx, tun.ID, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: acct,
		Config: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cloudflare.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{Hostname: cloudflare.F("origin.kamui.test"), Service: cloudflare.F("http://kamuidash-router.kamuidash-system.svc.cluster.local:8080")},
				{Hostname: cloudflare.F(""), Service: cloudflare.F("http_status:404")},
			}),
		}),
	})
	must(t, "configure tunnel", err)
	_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.CNAMERecordParam{
		Name: cloudflare.F("origin"), Type: cloudflare.F(dns.CNAMERecordTypeCNAME),
		Content: cloudflare.F(tun.ID + kdcf.TunnelTargetSuffix), Proxied: cloudflare.F(true), TTL: cloudflare.F(dns.TTL1),
	}})
	must(t, "create the origin CNAME", err)
	_, err = api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{
		ZoneID: zone, Hostname: cloudflare.F("www.shop.example"), CustomOriginServer: cloudflare.F("origin.kamui.test"),
	})
	must(t, "create custom hostname", err)
	// Until the zone has an active fallback origin, the custom hostname gets Cloudflare's
	// 1016 and never reaches the Worker; then the SaaS zone is set up as the provider's
	// kamuidash_fallback_origin does it: a proxied AAAA 100:: placeholder and the fallback
	// origin on it, active after --fallback-activation.
	if status, body := edge.get(t, "www.shop.example", "/there"); status != 530 || !strings.Contains(body, "1016") || strings.Contains(body, "tenant") {
		t.Errorf("custom domain without a fallback origin: HTTP %d %q, want the edge's 530 error 1016", status, body)
	}
	_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.AAAARecordParam{
		Name: cloudflare.F("fallback"), Type: cloudflare.F(dns.AAAARecordTypeAAAA), Content: cloudflare.F("100::"), Proxied: cloudflare.F(true), TTL: cloudflare.F(dns.TTL1),
	}})
	must(t, "create the fallback origin's placeholder record", err)
	_, err = api.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{ZoneID: zone, Origin: cloudflare.F("fallback.kamui.test")})
	must(t, "set the fallback origin", err)

	// The platform host and the custom domain both reach the tenant through the router.
	edge.eventually(t, "the platform host reaches the tenant", "shop.kamui.test", "/hello", func(s int, b string) bool {
		return s == 200 && b == "tenant host=shop.kamui.test path=/hello"
	})
	edge.eventually(t, "the custom domain reaches the tenant", "www.shop.example", "/there", func(s int, b string) bool {
		return s == 200 && b == "tenant host=www.shop.example path=/there"
	})
	// An unknown app is answered by the Worker itself, never forwarded.
	if status, body := edge.get(t, "nobody.kamui.test", "/"); status != http.StatusNotFound || strings.Contains(body, "tenant") {
		t.Errorf("unknown app: HTTP %d %q, want the Worker's 404", status, body)
	}

	// A new signing secret restarts the router with it: requests keep passing verification.
	uploadEdge("local-edge-test-signing-secret-rotated-9876543210")
	deadline := time.Now().Add(time.Minute)
	for strings.Count(edge.stderr.String(), `"msg":"router started"`) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the router was not restarted after the signing secret changed:\n%s", edge.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The Worker reloads before the router restarts, so both now use the rotated secret.
	if s, b := edge.get(t, "shop.kamui.test", "/after-rotation"); s != 200 || b != "tenant host=shop.kamui.test path=/after-rotation" {
		t.Errorf("after rotating the signing secret: HTTP %d %q", s, b)
	}

	if strings.Contains(edge.stderr.String(), "local-edge-test-signing-secret") {
		t.Errorf("the signing secret appears in the logs")
	}
}
