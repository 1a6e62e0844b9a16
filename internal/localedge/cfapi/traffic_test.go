package cfapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"slices"
	"strings"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/cache"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/r2"
	"github.com/cloudflare/cloudflare-go/v7/rulesets"
	"github.com/cloudflare/cloudflare-go/v7/shared"
	"github.com/cloudflare/cloudflare-go/v7/workers"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"
	"github.com/cloudflare/cloudflare-go/v7/zones"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// Module bytes that must survive the round trip exactly, including a non-UTF-8 Wasm header.
var (
	testWorkerJS   = []byte("import wasm from \"./router.wasm\";\nexport default { async fetch(req, env) { return new Response(\"ok\"); } };\n")
	testWorkerWasm = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0xff, 0xfe, 0x80}
)

// trafficOptions adapt the traffic to the path it takes.
type trafficOptions struct {
	// checkUploadMetadata, when not nil, is given each Worker upload's metadata document first.
	checkUploadMetadata func(map[string]any)
	// wasm is the Wasm module uploaded and read back byte-exact. Default testWorkerWasm.
	wasm []byte
}

// trafficResult names what driveProviderTraffic left in place, for later assertions.
type trafficResult struct {
	NamespaceID string
	Script      string
	RouteID     string
	TunnelID    string
	HostnameID  string
	// CacheRulesetID is the zone's Cache Rules entrypoint, left with one rule (OtherRuleID).
	CacheRulesetID string
	OtherRuleID    string
}

// driveProviderTraffic exercises every emulated operation through cloudflare-go, the client the
// provider uses, and checks the answers. It is shared by the direct test and the contract test
// (where the same traffic passes through a validating proxy).
func driveProviderTraffic(t *testing.T, api *cloudflare.Client, id Identity, opts trafficOptions) trafficResult {
	t.Helper()
	ctx := context.Background()
	acct, zone := cloudflare.F(id.AccountID), cloudflare.F(id.ZoneID)
	var out trafficResult

	// --- KV: namespace, values with metadata, bulk ops, cursor listing.
	ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F("kamuidash-hosts")})
	must(t, "create KV namespace", err)
	if ns.ID == "" || ns.Title != "kamuidash-hosts" {
		t.Fatalf("namespace = %+v", ns)
	}
	out.NamespaceID = ns.ID
	spareNS, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F("spare")})
	must(t, "create spare KV namespace", err)
	renamed, err := api.KV.Namespaces.Update(ctx, spareNS.ID, kv.NamespaceUpdateParams{AccountID: acct, Title: cloudflare.F("spare-renamed")})
	must(t, "rename KV namespace", err)
	if renamed.Title != "spare-renamed" {
		t.Errorf("renamed namespace title = %q", renamed.Title)
	}
	gotNS, err := api.KV.Namespaces.Get(ctx, spareNS.ID, kv.NamespaceGetParams{AccountID: acct})
	must(t, "get KV namespace", err)
	if gotNS.Title != "spare-renamed" {
		t.Errorf("namespace read back title = %q", gotNS.Title)
	}
	_, err = api.KV.Namespaces.Delete(ctx, spareNS.ID, kv.NamespaceDeleteParams{AccountID: acct})
	must(t, "delete KV namespace", err)
	namespaces, err := api.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: acct})
	must(t, "list KV namespaces", err)
	if len(namespaces.Result) != 1 || namespaces.Result[0].ID != ns.ID {
		t.Errorf("namespace list = %+v", namespaces.Result)
	}
	_, err = api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F("kamuidash-hosts")})
	wantAPIError(t, "duplicate namespace title", err, 409)
	// cloudflare-go splits a Go map into form fields; the provider passes metadata as a JSON string.
	_, err = api.KV.Namespaces.Values.Update(ctx, ns.ID, "host:app.example.test", kv.NamespaceValueUpdateParams{
		AccountID: acct,
		Value:     cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString(`{"app":"shop"}`)),
		Metadata:  cloudflare.F[any](`{"app":"shop","version":3}`),
	})
	must(t, "write KV value", err)
	resp, err := api.KV.Namespaces.Values.Get(ctx, ns.ID, "host:app.example.test", kv.NamespaceValueGetParams{AccountID: acct})
	must(t, "read KV value", err)
	value, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(value) != `{"app":"shop"}` {
		t.Errorf("KV value = %q", value)
	}
	meta, err := api.KV.Namespaces.Metadata.Get(ctx, ns.ID, "host:app.example.test", kv.NamespaceMetadataGetParams{AccountID: acct})
	must(t, "read KV metadata", err)
	if m, _ := (*meta).(map[string]any); m["app"] != "shop" || m["version"] != float64(3) {
		t.Errorf("KV metadata = %#v", *meta)
	}

	var bulk []kv.NamespaceBulkUpdateParamsBody
	for i := range 25 {
		bulk = append(bulk, kv.NamespaceBulkUpdateParamsBody{
			Key:      cloudflare.F(fmt.Sprintf("page:%02d", i)),
			Value:    cloudflare.F(fmt.Sprintf("v%d", i)),
			Metadata: cloudflare.F[any](map[string]any{"i": i}),
		})
	}
	bulk = append(bulk, kv.NamespaceBulkUpdateParamsBody{
		Key: cloudflare.F("blob"), Value: cloudflare.F(base64.StdEncoding.EncodeToString(testWorkerWasm)), Base64: cloudflare.F(true),
	})
	written, err := api.KV.Namespaces.BulkUpdate(ctx, ns.ID, kv.NamespaceBulkUpdateParams{AccountID: acct, Body: bulk})
	must(t, "bulk write", err)
	if written.SuccessfulKeyCount != 26 {
		t.Errorf("bulk write successful_key_count = %v, want 26", written.SuccessfulKeyCount)
	}

	firstPage, err := api.KV.Namespaces.Keys.List(ctx, ns.ID, kv.NamespaceKeyListParams{AccountID: acct, Prefix: cloudflare.F("page:"), Limit: cloudflare.F(10.0)})
	must(t, "list keys", err)
	if len(firstPage.Result) != 10 || firstPage.ResultInfo.Cursor == "" {
		t.Fatalf("first key page: %d keys, cursor %q; want 10 and a cursor", len(firstPage.Result), firstPage.ResultInfo.Cursor)
	}
	var names []string
	pager := api.KV.Namespaces.Keys.ListAutoPaging(ctx, ns.ID, kv.NamespaceKeyListParams{AccountID: acct, Prefix: cloudflare.F("page:"), Limit: cloudflare.F(10.0)})
	for pager.Next() {
		k := pager.Current()
		names = append(names, k.Name)
		if m, _ := k.Metadata.(map[string]any); m == nil || m["i"] == nil {
			t.Errorf("key %s listed without metadata: %#v", k.Name, k.Metadata)
		}
	}
	must(t, "auto-page keys", pager.Err())
	if len(names) != 25 || !slices.IsSorted(names) || names[0] != "page:00" || names[24] != "page:24" {
		t.Errorf("paged key names = %v", names)
	}

	got, err := api.KV.Namespaces.BulkGet(ctx, ns.ID, kv.NamespaceBulkGetParams{
		AccountID: acct, Keys: cloudflare.F([]string{"page:01", "missing"}), WithMetadata: cloudflare.F(true),
	})
	must(t, "bulk get", err)
	var bulkGot struct {
		Values map[string]*struct {
			Value    string         `json:"value"`
			Metadata map[string]any `json:"metadata"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(got.JSON.RawJSON()), &bulkGot); err != nil {
		t.Fatal(err)
	}
	if v := bulkGot.Values["page:01"]; v == nil || v.Value != "v1" || v.Metadata["i"] != float64(1) {
		t.Errorf("bulk get page:01 = %+v", v)
	}
	if v, ok := bulkGot.Values["missing"]; !ok || v != nil {
		t.Errorf("bulk get of a missing key should map it to null, got %+v (present %v)", v, ok)
	}
	deleted, err := api.KV.Namespaces.BulkDelete(ctx, ns.ID, kv.NamespaceBulkDeleteParams{AccountID: acct, Body: []string{"page:00", "page:01"}})
	must(t, "bulk delete", err)
	if deleted.SuccessfulKeyCount != 2 {
		t.Errorf("bulk delete count = %v", deleted.SuccessfulKeyCount)
	}
	_, err = api.KV.Namespaces.Values.Get(ctx, ns.ID, "page:00", kv.NamespaceValueGetParams{AccountID: acct})
	wantAPIError(t, "read bulk-deleted key", err, 404)
	_, err = api.KV.Namespaces.Values.Delete(ctx, ns.ID, "page:02", kv.NamespaceValueDeleteParams{AccountID: acct})
	must(t, "delete KV value", err)

	// --- Workers: multipart upload with ES module + Wasm + bindings, settings and content back.
	out.Script = "kamuidash-edge"
	edgeMetadata := map[string]any{
		"main_module":         "worker.mjs",
		"compatibility_date":  "2025-01-01",
		"compatibility_flags": []string{"nodejs_compat"},
		"bindings": []map[string]any{
			{"type": "kv_namespace", "name": "HOSTS", "namespace_id": ns.ID},
			{"type": "r2_bucket", "name": "ASSETS", "bucket_name": "kamuidash-assets"},
			{"type": "plain_text", "name": "PLATFORM_DOMAIN", "text": "kamuidash.localhost"},
			{"type": "secret_text", "name": "SIGNING_KEY", "text": "not-a-real-secret"},
		},
	}
	throwawayMetadata := map[string]any{"main_module": "a.mjs"}
	if opts.checkUploadMetadata != nil {
		opts.checkUploadMetadata(edgeMetadata)
		opts.checkUploadMetadata(throwawayMetadata)
	}
	wasm := opts.wasm
	if wasm == nil {
		wasm = testWorkerWasm
	}
	ct, body := workerUpload(t, edgeMetadata, workerPart{"worker.mjs", "application/javascript+module", testWorkerJS}, workerPart{"router.wasm", "application/wasm", wasm})
	uploaded, err := api.Workers.Scripts.Update(ctx, out.Script, workers.ScriptUpdateParams{AccountID: acct}, option.WithRequestBody(ct, body))
	must(t, "upload worker", err)
	if uploaded.ID != out.Script || uploaded.Etag == "" || !uploaded.HasModules {
		t.Errorf("upload answer = id %q etag %q has_modules %v", uploaded.ID, uploaded.Etag, uploaded.HasModules)
	}
	settings, err := api.Workers.Scripts.ScriptAndVersionSettings.Get(ctx, out.Script, workers.ScriptScriptAndVersionSettingGetParams{AccountID: acct})
	must(t, "read script settings", err)
	if settings.CompatibilityDate != "2025-01-01" || len(settings.Bindings) != 4 {
		t.Errorf("settings: date %q, %d bindings", settings.CompatibilityDate, len(settings.Bindings))
	}
	if raw := settings.JSON.RawJSON(); bytes.Contains([]byte(raw), []byte("not-a-real-secret")) {
		t.Errorf("settings leak a secret_text value: %s", raw)
	}
	for _, b := range settings.Bindings {
		if b.Name == "HOSTS" && b.NamespaceID != ns.ID {
			t.Errorf("HOSTS binding namespace = %q", b.NamespaceID)
		}
		if b.Name == "PLATFORM_DOMAIN" && b.Text != "kamuidash.localhost" {
			t.Errorf("plain_text binding text = %q", b.Text)
		}
	}
	content, err := api.Workers.Scripts.Content.Get(ctx, out.Script, workers.ScriptContentGetParams{AccountID: acct})
	must(t, "read script content", err)
	modules := readModules(t, content.Header.Get("Content-Type"), content.Body)
	_ = content.Body.Close()
	for name, want := range map[string][]byte{"worker.mjs": testWorkerJS, "router.wasm": wasm} {
		if !bytes.Equal(modules[name], want) {
			t.Errorf("module %s did not round-trip byte-exact: got %q, want %q", name, modules[name], want)
		}
	}
	if got := content.Header.Get("CF-Entrypoint"); got != "worker.mjs" {
		t.Errorf("CF-Entrypoint = %q", got)
	}
	download, err := api.Workers.Scripts.Get(ctx, out.Script, workers.ScriptGetParams{AccountID: acct})
	must(t, "download script", err)
	if !bytes.Contains([]byte(*download), testWorkerJS) {
		t.Errorf("script download does not contain the main module")
	}
	list, err := api.Workers.Scripts.List(ctx, workers.ScriptListParams{AccountID: acct})
	must(t, "list scripts", err)
	if len(list.Result) != 1 || list.Result[0].ID != out.Script {
		t.Errorf("script list = %+v", list.Result)
	}
	// A throwaway script proves delete.
	_, err = api.Workers.Scripts.Update(ctx, "throwaway", workers.ScriptUpdateParams{AccountID: acct}, option.WithRequestBody(workerUpload(t,
		throwawayMetadata, workerPart{"a.mjs", "application/javascript+module", []byte("export default {}")})))
	must(t, "upload throwaway worker", err)
	_, err = api.Workers.Scripts.Delete(ctx, "throwaway", workers.ScriptDeleteParams{AccountID: acct})
	must(t, "delete worker", err)
	_, err = api.Workers.Scripts.ScriptAndVersionSettings.Get(ctx, "throwaway", workers.ScriptScriptAndVersionSettingGetParams{AccountID: acct})
	wantAPIError(t, "settings of a deleted worker", err, 404)

	// --- Workers routes.
	route, err := api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: zone, Pattern: cloudflare.F("*.kamuidash.localhost/*"), Script: cloudflare.F(out.Script)})
	must(t, "create route", err)
	out.RouteID = route.ID
	spare, err := api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: zone, Pattern: cloudflare.F("spare.kamuidash.localhost/*"), Script: cloudflare.F(out.Script)})
	must(t, "create spare route", err)
	_, err = api.Workers.Routes.Update(ctx, spare.ID, workers.RouteUpdateParams{ZoneID: zone, Pattern: cloudflare.F("spare2.kamuidash.localhost/*"), Script: cloudflare.F(out.Script)})
	must(t, "update route", err)
	gotRoute, err := api.Workers.Routes.Get(ctx, route.ID, workers.RouteGetParams{ZoneID: zone})
	must(t, "get route", err)
	if gotRoute.Pattern != "*.kamuidash.localhost/*" || gotRoute.Script != out.Script {
		t.Errorf("route read back = %+v", gotRoute)
	}
	routes, err := api.Workers.Routes.List(ctx, workers.RouteListParams{ZoneID: zone})
	must(t, "list routes", err)
	if len(routes.Result) != 2 || routes.Result[1].Pattern != "spare2.kamuidash.localhost/*" {
		t.Errorf("routes = %+v", routes.Result)
	}
	_, err = api.Workers.Routes.Delete(ctx, spare.ID, workers.RouteDeleteParams{ZoneID: zone})
	must(t, "delete route", err)

	// --- Custom hostname: pending until its TXT record is published on the zone, then active
	// (the callers start the zone with an active fallback origin, Config.SeedFallbackOrigin).
	hn, err := api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{
		ZoneID:             zone,
		Hostname:           cloudflare.F("shop.customer.test"),
		CustomOriginServer: cloudflare.F("origin.kamuidash.localhost"),
		SSL: cloudflare.F(custom_hostnames.CustomHostnameNewParamsSSL{
			Method: cloudflare.F(custom_hostnames.DCVMethodTXT),
			Type:   cloudflare.F(custom_hostnames.DomainValidationTypeDv),
			Settings: cloudflare.F(custom_hostnames.CustomHostnameNewParamsSSLSettings{
				MinTLSVersion: cloudflare.F(custom_hostnames.CustomHostnameNewParamsSSLSettingsMinTLSVersion1_2),
			}),
		}),
	})
	must(t, "create custom hostname", err)
	out.HostnameID = hn.ID
	if hn.SSL.Status != "pending_validation" || hn.OwnershipVerification.Name == "" || hn.OwnershipVerification.Value == "" {
		t.Fatalf("new custom hostname: ssl %q, verification %+v", hn.SSL.Status, hn.OwnershipVerification)
	}
	other, err := api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{ZoneID: zone, Hostname: cloudflare.F("other.customer.test")})
	must(t, "create second custom hostname", err)
	filtered, err := api.CustomHostnames.List(ctx, custom_hostnames.CustomHostnameListParams{
		ZoneID: zone, Hostname: cloudflare.F(custom_hostnames.CustomHostnameListParamsHostname{Exact: cloudflare.F("shop.customer.test")}),
	})
	must(t, "list custom hostnames by exact hostname", err)
	if len(filtered.Result) != 1 || filtered.Result[0].ID != hn.ID {
		t.Errorf("exact hostname filter returned %d results", len(filtered.Result))
	}
	txt, err := api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.TXTRecordParam{
		Name:    cloudflare.F(hn.OwnershipVerification.Name),
		Type:    cloudflare.F(dns.TXTRecordTypeTXT),
		Content: cloudflare.F(hn.OwnershipVerification.Value),
		TTL:     cloudflare.F(dns.TTL(1)),
	}})
	must(t, "publish verification TXT record", err)
	active, err := api.CustomHostnames.Get(ctx, hn.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
	must(t, "get custom hostname", err)
	if active.SSL.Status != "active" || active.Status != "active" {
		t.Errorf("after publishing the TXT record: ssl %q, hostname %q; want active", active.SSL.Status, active.Status)
	}
	_, err = api.CustomHostnames.Delete(ctx, other.ID, custom_hostnames.CustomHostnameDeleteParams{ZoneID: zone})
	must(t, "delete custom hostname", err)
	all, err := api.CustomHostnames.List(ctx, custom_hostnames.CustomHostnameListParams{ZoneID: zone})
	must(t, "list custom hostnames", err)
	if len(all.Result) != 1 {
		t.Errorf("after deleting one of two hostnames, %d remain", len(all.Result))
	}
	edited, err := api.CustomHostnames.Edit(ctx, hn.ID, custom_hostnames.CustomHostnameEditParams{ZoneID: zone, CustomOriginServer: cloudflare.F("origin2.kamuidash.localhost")})
	must(t, "edit custom hostname", err)
	if edited.CustomOriginServer != "origin2.kamuidash.localhost" || edited.SSL.Status != "active" {
		t.Errorf("edited custom hostname: origin %q ssl %q", edited.CustomOriginServer, edited.SSL.Status)
	}

	// --- DNS records: CRUD and filters.
	a, err := api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.ARecordParam{
		Name: cloudflare.F("www"), Type: cloudflare.F(dns.ARecordTypeA), Content: cloudflare.F("192.0.2.1"), TTL: cloudflare.F(dns.TTL(300)), Proxied: cloudflare.F(true),
	}})
	must(t, "create A record", err)

	// --- The SaaS zone's fallback origin: set to the proxied record, read back, removed.
	set, err := api.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{ZoneID: zone, Origin: cloudflare.F("www." + id.ZoneName)})
	must(t, "set the fallback origin", err)
	if set.Origin != "www."+id.ZoneName || set.Status != custom_hostnames.FallbackOriginUpdateResponseStatusInitializing {
		t.Errorf("fallback origin after PUT: %q %q, want initializing", set.Origin, set.Status)
	}
	fallback, err := api.CustomHostnames.FallbackOrigin.Get(ctx, custom_hostnames.FallbackOriginGetParams{ZoneID: zone})
	must(t, "get the fallback origin", err)
	if fallback.Origin != "www."+id.ZoneName {
		t.Errorf("fallback origin read back as %q", fallback.Origin)
	}
	_, err = api.CustomHostnames.FallbackOrigin.Delete(ctx, custom_hostnames.FallbackOriginDeleteParams{ZoneID: zone})
	must(t, "delete the fallback origin", err)
	if a.Name != "www."+id.ZoneName {
		t.Errorf("A record name = %q, want the zone appended", a.Name)
	}
	byType, err := api.DNS.Records.List(ctx, dns.RecordListParams{ZoneID: zone, Type: cloudflare.F(dns.RecordListParamsTypeTXT)})
	must(t, "list TXT records", err)
	if len(byType.Result) != 1 || byType.Result[0].ID != txt.ID {
		t.Errorf("type filter returned %d records", len(byType.Result))
	}
	byName, err := api.DNS.Records.List(ctx, dns.RecordListParams{ZoneID: zone, Name: cloudflare.F(dns.RecordListParamsName{Exact: cloudflare.F("www." + id.ZoneName)})})
	must(t, "list records by name", err)
	if len(byName.Result) != 1 || byName.Result[0].ID != a.ID {
		t.Errorf("name filter returned %d records", len(byName.Result))
	}
	patched, err := api.DNS.Records.Edit(ctx, a.ID, dns.RecordEditParams{ZoneID: zone, Body: dns.ARecordParam{
		Name: cloudflare.F("www"), Type: cloudflare.F(dns.ARecordTypeA), Content: cloudflare.F("192.0.2.2"), TTL: cloudflare.F(dns.TTL(300)),
	}})
	must(t, "patch A record", err)
	if patched.Content != "192.0.2.2" || !patched.Proxied {
		t.Errorf("patched record: content %q proxied %v", patched.Content, patched.Proxied)
	}
	replaced, err := api.DNS.Records.Update(ctx, a.ID, dns.RecordUpdateParams{ZoneID: zone, Body: dns.ARecordParam{
		Name: cloudflare.F("www"), Type: cloudflare.F(dns.ARecordTypeA), Content: cloudflare.F("192.0.2.3"), TTL: cloudflare.F(dns.TTL(1)),
	}})
	must(t, "replace A record", err)
	if replaced.Content != "192.0.2.3" || replaced.Proxied {
		t.Errorf("replaced record: content %q proxied %v (PUT resets unspecified fields)", replaced.Content, replaced.Proxied)
	}
	_, err = api.DNS.Records.Delete(ctx, a.ID, dns.RecordDeleteParams{ZoneID: zone})
	must(t, "delete A record", err)
	_, err = api.DNS.Records.Get(ctx, a.ID, dns.RecordGetParams{ZoneID: zone})
	wantAPIError(t, "get deleted DNS record", err, 404)

	// --- Tunnel: create, configure, token, connections cleanup, delete a second one.
	secret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	tun, err := api.ZeroTrust.Tunnels.Cloudflared.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID: acct, Name: cloudflare.F("kamuidash-origin"), ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare), TunnelSecret: cloudflare.F(secret),
	})
	must(t, "create tunnel", err)
	out.TunnelID = tun.ID
	cfg, err := api.ZeroTrust.Tunnels.Cloudflared.Configurations.Update(ctx, tun.ID, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: acct,
		Config: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cloudflare.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{Hostname: cloudflare.F("origin.kamuidash.localhost"), Service: cloudflare.F("http://127.0.0.1:8081")},
				{Hostname: cloudflare.F(""), Service: cloudflare.F("http_status:404")},
			}),
		}),
	})
	must(t, "configure tunnel", err)
	if len(cfg.Config.Ingress) != 2 || cfg.Config.Ingress[0].Service != "http://127.0.0.1:8081" {
		t.Errorf("tunnel config = %+v", cfg.Config.Ingress)
	}
	gotCfg, err := api.ZeroTrust.Tunnels.Cloudflared.Configurations.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredConfigurationGetParams{AccountID: acct})
	must(t, "read tunnel config", err)
	if len(gotCfg.Config.Ingress) != 2 || gotCfg.Config.Ingress[0].Hostname != "origin.kamuidash.localhost" {
		t.Errorf("tunnel config read back = %+v", gotCfg.Config.Ingress)
	}
	token, err := api.ZeroTrust.Tunnels.Cloudflared.Token.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredTokenGetParams{AccountID: acct})
	must(t, "tunnel token", err)
	var tokenFields map[string]string
	if raw, err := base64.StdEncoding.DecodeString(*token); err != nil || json.Unmarshal(raw, &tokenFields) != nil ||
		tokenFields["t"] != tun.ID || tokenFields["a"] != id.AccountID || tokenFields["s"] != secret {
		t.Errorf("tunnel token does not carry account, tunnel and secret")
	}
	tuns, err := api.ZeroTrust.Tunnels.Cloudflared.List(ctx, zero_trust.TunnelCloudflaredListParams{AccountID: acct, Name: cloudflare.F("kamuidash-origin")})
	must(t, "list tunnels", err)
	if len(tuns.Result) != 1 || tuns.Result[0].ID != tun.ID {
		t.Errorf("tunnel list by name = %d results", len(tuns.Result))
	}
	doomed, err := api.ZeroTrust.Tunnels.Cloudflared.New(ctx, zero_trust.TunnelCloudflaredNewParams{AccountID: acct, Name: cloudflare.F("doomed"), ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare)})
	must(t, "create doomed tunnel", err)
	renamedTunnel, err := api.ZeroTrust.Tunnels.Cloudflared.Edit(ctx, doomed.ID, zero_trust.TunnelCloudflaredEditParams{AccountID: acct, Name: cloudflare.F("doomed-renamed")})
	must(t, "rename tunnel", err)
	if renamedTunnel.ID != doomed.ID || renamedTunnel.Name != "doomed-renamed" {
		t.Errorf("renamed tunnel = %s %q, want %s \"doomed-renamed\"", renamedTunnel.ID, renamedTunnel.Name, doomed.ID)
	}
	_, err = api.ZeroTrust.Tunnels.Cloudflared.Edit(ctx, doomed.ID, zero_trust.TunnelCloudflaredEditParams{AccountID: acct, Name: cloudflare.F("kamuidash-origin")})
	wantAPIError(t, "rename a tunnel to a name taken", err, 409)
	conns, err := api.ZeroTrust.Tunnels.Cloudflared.Connections.Get(ctx, doomed.ID, zero_trust.TunnelCloudflaredConnectionGetParams{AccountID: acct})
	must(t, "list tunnel connections", err)
	if len(conns.Result) != 0 {
		t.Errorf("the emulated tunnel reports %d connections, want none", len(conns.Result))
	}
	_, err = api.ZeroTrust.Tunnels.Cloudflared.Connections.Delete(ctx, doomed.ID, zero_trust.TunnelCloudflaredConnectionDeleteParams{AccountID: acct})
	must(t, "clean up tunnel connections", err)
	_, err = api.ZeroTrust.Tunnels.Cloudflared.Delete(ctx, doomed.ID, zero_trust.TunnelCloudflaredDeleteParams{AccountID: acct})
	must(t, "delete tunnel", err)
	_, err = api.ZeroTrust.Tunnels.Cloudflared.Get(ctx, doomed.ID, zero_trust.TunnelCloudflaredGetParams{AccountID: acct})
	wantAPIError(t, "get deleted tunnel", err, 404)

	// --- The zone: resolved by name through the provider's own lookup (which needs only the
	// Zones service, here the test client's), then its details by id.
	named, err := (&kdcf.Client{Zones: api.Zones}).ActiveZonesNamed(ctx, id.AccountID, strings.ToUpper(id.ZoneName))
	must(t, "look the zone up by name", err)
	if len(named) != 1 || named[0].ID != id.ZoneID || named[0].AccountID != id.AccountID {
		t.Errorf("zones named %s = %+v, want the zone %s alone", id.ZoneName, named, id.ZoneID)
	}
	details, err := api.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: zone})
	must(t, "get the zone", err)
	if details.Name != id.ZoneName || details.Status != zones.ZoneStatusActive {
		t.Errorf("zone details = %+v", details)
	}

	// --- Purge by URL.
	purge, err := api.Cache.Purge(ctx, cache.CachePurgeParams{ZoneID: zone, Body: cache.CachePurgeParamsBodyCachePurgeSingleFile{
		Files: cloudflare.F([]string{"https://shop.customer.test/index.html", "https://shop.customer.test/app.js"}),
	}})
	must(t, "purge by URL", err)
	if purge.ID == "" {
		t.Error("purge answer has no id")
	}

	// --- Cache Rules: the tunnel's bypass rule through the provider's own code (which needs
	// only the Rulesets service, here the test client's), beside a rule someone else owns.
	_, err = api.Rulesets.Phases.Get(ctx, rulesets.PhaseHTTPRequestCacheSettings, rulesets.PhaseGetParams{ZoneID: zone})
	wantAPIError(t, "Cache Rules entrypoint of a fresh zone", err, 404)
	rc := &kdcf.Client{Rulesets: api.Rulesets}
	ours := kdcf.BypassCacheRule{Ref: "kamuidash_tunnel_" + tun.ID, Description: "Managed by kamuidash_tunnel", Hosts: []string{"origin.kamuidash.localhost"}}
	rule, err := rc.CreateBypassCacheRule(ctx, id.ZoneID, ours) // creates the entrypoint
	must(t, "create the bypass Cache Rule", err)
	if !rule.Bypasses(ours) || rule.RulesetID == "" {
		t.Errorf("created Cache Rule = %+v", rule)
	}
	withOther, err := api.Rulesets.Rules.New(ctx, rule.RulesetID, rulesets.RuleNewParams{ZoneID: zone,
		Body: rulesets.RuleNewParamsBodySetCacheSettingsRule{
			Position: cloudflare.F[rulesets.RuleNewParamsBodySetCacheSettingsRulePositionUnion](
				rulesets.RuleNewParamsBodySetCacheSettingsRulePositionIndexPosition{Index: cloudflare.F(int64(1))}),
			SetCacheSettingsRuleParam: rulesets.SetCacheSettingsRuleParam{
				Action:           cloudflare.F(rulesets.SetCacheSettingsRuleActionSetCacheSettings),
				ActionParameters: cloudflare.F(rulesets.SetCacheSettingsRuleActionParametersParam{Cache: cloudflare.F(true)}),
				Expression:       cloudflare.F(`(http.host eq "static.kamuidash.localhost")`),
				Description:      cloudflare.F("someone else's rule"),
			},
		}})
	must(t, "add another Cache Rule at the top", err)
	if len(withOther.Rules) != 2 || withOther.Rules[0].Description != "someone else's rule" || withOther.Rules[1].ID != rule.ID {
		t.Errorf("after adding a rule at index 1, rules = %+v", withOther.Rules)
	}
	out.CacheRulesetID, out.OtherRuleID = rule.RulesetID, withOther.Rules[0].ID
	moved := ours
	moved.Hosts = []string{"origin.kamuidash.localhost", "origin2.kamuidash.localhost"}
	widened, err := rc.UpdateBypassCacheRule(ctx, id.ZoneID, rule.RulesetID, rule.ID, moved)
	must(t, "edit the bypass Cache Rule", err)
	if widened.ID != rule.ID || !widened.Bypasses(moved) || widened.Bypasses(ours) {
		t.Errorf("edited Cache Rule = %+v", widened)
	}
	byRef, found, err := rc.FindCacheRule(ctx, id.ZoneID, "", ours.Ref)
	must(t, "find the Cache Rule by ref", err)
	if !found || byRef.ID != rule.ID || byRef.Expression != `(http.host in {"origin.kamuidash.localhost" "origin2.kamuidash.localhost"})` {
		t.Errorf("Cache Rule by ref = %+v (found %v)", byRef, found)
	}
	must(t, "delete the bypass Cache Rule", rc.DeleteCacheRule(ctx, id.ZoneID, rule.RulesetID, rule.ID))
	left, err := api.Rulesets.Get(ctx, rule.RulesetID, rulesets.RulesetGetParams{ZoneID: zone})
	must(t, "get the Cache Rules ruleset", err)
	if len(left.Rules) != 1 || left.Rules[0].ID != out.OtherRuleID || left.Phase != rulesets.PhaseHTTPRequestCacheSettings {
		t.Errorf("after deleting our rule, the ruleset holds %+v", left.Rules)
	}
	must(t, "delete an already deleted rule", rc.DeleteCacheRule(ctx, id.ZoneID, rule.RulesetID, rule.ID))

	// --- R2: a bucket, objects with content types (keys percent-encoded, as the provider
	// sends them), listing by prefix, read back, delete.
	_, err = api.R2.Buckets.New(ctx, r2.BucketNewParams{AccountID: acct, Name: cloudflare.F("kamuidash-static")})
	must(t, "create R2 bucket", err)
	_, err = api.R2.Buckets.Get(ctx, "kamuidash-static", r2.BucketGetParams{AccountID: acct})
	must(t, "get R2 bucket", err)
	buckets, err := api.R2.Buckets.List(ctx, r2.BucketListParams{AccountID: acct})
	must(t, "list R2 buckets", err)
	if len(buckets.Buckets) != 1 || buckets.Buckets[0].Name != "kamuidash-static" {
		t.Errorf("R2 bucket list = %+v", buckets.Buckets)
	}
	page := []byte("<!doctype html><h1>docs</h1>\n")
	_, err = api.R2.Buckets.Objects.Upload(ctx, "kamuidash-static", "sites%2Fdocs%2Fv1%2Findex.html", bytes.NewReader(page),
		r2.BucketObjectUploadParams{AccountID: acct}, option.WithHeader("Content-Type", "text/html; charset=utf-8"))
	must(t, "upload R2 object", err)
	objects, err := api.R2.Buckets.Objects.List(ctx, "kamuidash-static", r2.BucketObjectListParams{AccountID: acct, Prefix: cloudflare.F("sites/docs/")})
	must(t, "list R2 objects", err)
	if len(objects.Result) != 1 || objects.Result[0].Key != "sites/docs/v1/index.html" || objects.Result[0].HTTPMetadata.ContentType != "text/html; charset=utf-8" {
		t.Errorf("R2 object list = %+v", objects.Result)
	}
	obj, err := api.R2.Buckets.Objects.Get(ctx, "kamuidash-static", "sites%2Fdocs%2Fv1%2Findex.html", r2.BucketObjectGetParams{AccountID: acct})
	must(t, "get R2 object", err)
	gotPage, _ := io.ReadAll(obj.Body)
	_ = obj.Body.Close()
	if !bytes.Equal(gotPage, page) {
		t.Errorf("R2 object read back as %q", gotPage)
	}
	_, err = api.R2.Buckets.Objects.Delete(ctx, "kamuidash-static", "sites%2Fdocs%2Fv1%2Findex.html", r2.BucketObjectDeleteParams{AccountID: acct})
	must(t, "delete R2 object", err)
	_, err = api.R2.Buckets.Delete(ctx, "kamuidash-static", r2.BucketDeleteParams{AccountID: acct})
	must(t, "delete R2 bucket", err)
	return out
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantAPIError asserts err is a cloudflare-go API error with that HTTP status.
func wantAPIError(t *testing.T, what string, err error, status int) {
	t.Helper()
	var apiErr *cloudflare.Error
	if !asCloudflareError(err, &apiErr) || apiErr.StatusCode != status {
		t.Errorf("%s: err = %v, want an API error with status %d", what, err, status)
	}
}

// readModules parses a multipart script content answer into module name → bytes.
func readModules(t *testing.T, contentType string, body io.Reader) map[string][]byte {
	t.Helper()
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatalf("content type %q: %v", contentType, err)
	}
	mr := multipart.NewReader(body, params["boundary"])
	out := map[string][]byte{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		out[p.FormName()] = data
	}
}
