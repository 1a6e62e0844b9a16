package cfapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/shared"
	"github.com/cloudflare/cloudflare-go/v7/workers"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"
)

// TestRestartLosesNothing runs the provider's traffic, stops the server and starts a new one
// on the same state dir: ids, token and every object must still be there.
func TestRestartLosesNothing(t *testing.T) {
	dir := t.TempDir()
	first, ts := startServer(t, Config{StateDir: dir, SeedFallbackOrigin: "fallback"})
	id := first.Identity()
	made := driveProviderTraffic(t, newClient(ts.URL, id.APIToken, 0), id, trafficOptions{})
	ts.Close()

	second, ts2 := startServer(t, Config{StateDir: dir, ZoneName: "ignored-after-first-start.localhost"})
	if second.Identity() != id {
		t.Fatalf("identity changed across restart: %+v -> %+v", id, second.Identity())
	}
	ctx := context.Background()
	api := newClient(ts2.URL, id.APIToken, 0)
	acct, zone := cloudflare.F(id.AccountID), cloudflare.F(id.ZoneID)

	resp, err := api.KV.Namespaces.Values.Get(ctx, made.NamespaceID, "blob", kv.NamespaceValueGetParams{AccountID: acct})
	must(t, "KV value after restart", err)
	blob, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(blob) != string(testWorkerWasm) {
		t.Errorf("base64-written KV value after restart = %q", blob)
	}
	content, err := api.Workers.Scripts.Content.Get(ctx, made.Script, workers.ScriptContentGetParams{AccountID: acct})
	must(t, "script content after restart", err)
	modules := readModules(t, content.Header.Get("Content-Type"), content.Body)
	_ = content.Body.Close()
	if string(modules["router.wasm"]) != string(testWorkerWasm) {
		t.Errorf("Wasm module after restart = %q", modules["router.wasm"])
	}
	sc, ok := second.Script(made.Script)
	if !ok || len(sc.Bindings) != 4 || sc.ETag == "" {
		t.Fatalf("script after restart: %+v", sc)
	}
	if secret := sc.Bindings[3]; secret.Type() != "secret_text" || secret["text"] != "not-a-real-secret" {
		t.Errorf("the runtime must still see the secret after restart, got %v", secret)
	}
	route, err := api.Workers.Routes.Get(ctx, made.RouteID, workers.RouteGetParams{ZoneID: zone})
	must(t, "route after restart", err)
	if route.Script != made.Script {
		t.Errorf("route script = %q", route.Script)
	}
	hn, err := api.CustomHostnames.Get(ctx, made.HostnameID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
	must(t, "custom hostname after restart", err)
	if hn.SSL.Status != "active" || hn.CustomOriginServer != "origin2.kamuidash.localhost" {
		t.Errorf("custom hostname after restart: ssl %q origin %q", hn.SSL.Status, hn.CustomOriginServer)
	}
	cfg, err := api.ZeroTrust.Tunnels.Cloudflared.Configurations.Get(ctx, made.TunnelID, zero_trust.TunnelCloudflaredConfigurationGetParams{AccountID: acct})
	must(t, "tunnel config after restart", err)
	if len(cfg.Config.Ingress) != 2 {
		t.Errorf("tunnel ingress after restart = %+v", cfg.Config.Ingress)
	}
	token, err := api.ZeroTrust.Tunnels.Cloudflared.Token.Get(ctx, made.TunnelID, zero_trust.TunnelCloudflaredTokenGetParams{AccountID: acct})
	must(t, "tunnel token after restart", err)
	raw, _ := base64.StdEncoding.DecodeString(*token)
	var fields map[string]string
	_ = json.Unmarshal(raw, &fields)
	if fields["t"] != made.TunnelID || fields["s"] == "" {
		t.Errorf("tunnel token after restart lost its tunnel or secret")
	}
	rs, ok := second.Entrypoint(CachePhase)
	if !ok || rs.ID != made.CacheRulesetID || len(rs.Rules) != 1 || rs.Rules[0].ID != made.OtherRuleID || !rs.Rules[0].Enabled {
		t.Errorf("Cache Rules after restart: %+v (found %v)", rs, ok)
	}
	// The traffic leaves one record of its own, beside the seeded fallback origin's.
	if len(second.DNSRecords()) != 2 || len(second.Purges()) != 1 {
		t.Errorf("after restart: %d DNS records, %d purges; want 2 and 1", len(second.DNSRecords()), len(second.Purges()))
	}

	// State files are owner-only and no temp file is left behind by the atomic writes.
	entries, err := os.ReadDir(dir)
	must(t, "read state dir", err)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("leftover temp file %s", e.Name())
		}
		info, _ := os.Stat(filepath.Join(dir, e.Name()))
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s is readable by others (%v); it holds the token and secrets", e.Name(), perm)
		}
	}
}

func TestNewRequiresStateDir(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without a state dir succeeded")
	}
}

// TestFailedWriteRollsBack simulates a full disk: the API answers 500 and the change is not
// kept in memory either, so memory never claims what the disk does not hold.
func TestFailedWriteRollsBack(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: cloudflare.F(id.AccountID), Title: cloudflare.F("n")})
	must(t, "create namespace", err)

	writeStateFile = func(string, []byte) error { return errors.New("no space left on device") }
	t.Cleanup(func() { writeStateFile = writeFileAtomic })
	_, err = api.KV.Namespaces.Values.Update(ctx, ns.ID, "k", kv.NamespaceValueUpdateParams{
		AccountID: cloudflare.F(id.AccountID), Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString("v")),
	})
	wantAPIError(t, "write on a full disk", err, 500)
	_, err = api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: cloudflare.F(id.AccountID), Title: cloudflare.F("lost")})
	wantAPIError(t, "create on a full disk", err, 500)
	writeStateFile = writeFileAtomic

	if _, ok := srv.KVValue(ns.ID, "k"); ok {
		t.Error("a write that failed to persist is visible in memory")
	}
	if got := srv.KVNamespaces(); len(got) != 1 || got[0].ID != ns.ID {
		t.Errorf("namespaces after failed writes = %+v, want only the first", got)
	}
}
