package cfapi

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/shared"
	"github.com/cloudflare/cloudflare-go/v7/workers"
)

// recorder collects hook calls; hooks may run on other goroutines.
type recorder struct {
	mu        sync.Mutex
	scripts   []ScriptEvent
	kv        []KVEvent
	routes    [][]Route
	hostnames [][]CustomHostnameStatus
	dns       [][]DNSRecord
	tunnels   []TunnelEvent
	kvSeen    chan KVEvent
}

func (r *recorder) hooks() Hooks {
	lock := func(f func()) { r.mu.Lock(); defer r.mu.Unlock(); f() }
	return Hooks{
		ScriptChanged: func(e ScriptEvent) { lock(func() { r.scripts = append(r.scripts, e) }) },
		KVChanged: func(e KVEvent) {
			lock(func() { r.kv = append(r.kv, e) })
			if r.kvSeen != nil {
				r.kvSeen <- e
			}
		},
		RoutesChanged:          func(rs []Route) { lock(func() { r.routes = append(r.routes, rs) }) },
		CustomHostnamesChanged: func(hs []CustomHostnameStatus) { lock(func() { r.hostnames = append(r.hostnames, hs) }) },
		DNSChanged:             func(ds []DNSRecord) { lock(func() { r.dns = append(r.dns, ds) }) },
		TunnelChanged:          func(e TunnelEvent) { lock(func() { r.tunnels = append(r.tunnels, e) }) },
	}
}

func TestHooksReportChangesToTheRuntime(t *testing.T) {
	rec := &recorder{}
	// A negative propagation delay delivers KV events before the API call returns.
	srv, ts := startServer(t, Config{SeedFallbackOrigin: "fallback", Hooks: rec.hooks(), KVPropagationDelay: -1})
	id := srv.Identity()
	made := driveProviderTraffic(t, newClient(ts.URL, id.APIToken, 0), id, trafficOptions{})

	rec.mu.Lock()
	defer rec.mu.Unlock()
	var uploaded *Script
	for _, e := range rec.scripts {
		if e.Name == made.Script && !e.Deleted {
			uploaded = e.Script
		}
	}
	if uploaded == nil || uploaded.MainModule != "worker.mjs" || len(uploaded.Modules) != 2 {
		t.Fatalf("ScriptChanged did not report the upload with its modules: %+v", rec.scripts)
	}
	if uploaded.Bindings[3]["text"] != "not-a-real-secret" {
		t.Error("the runtime's copy of the script lacks the secret it must bind")
	}
	if last := rec.scripts[len(rec.scripts)-1]; last.Name != "throwaway" || !last.Deleted {
		t.Errorf("last script event = %+v, want the throwaway delete", last)
	}

	var wroteMeta, deletedKey bool
	for _, e := range rec.kv {
		if e.Key == "host:app.example.test" && e.Entry != nil && string(e.Entry.Metadata) == `{"app":"shop","version":3}` {
			wroteMeta = true
		}
		if e.Key == "page:00" && e.Deleted {
			deletedKey = true
		}
	}
	if !wroteMeta || !deletedKey {
		t.Errorf("KVChanged missed the metadata write (%v) or the bulk delete (%v)", wroteMeta, deletedKey)
	}

	if final := rec.routes[len(rec.routes)-1]; len(final) != 1 || final[0].ID != made.RouteID {
		t.Errorf("last RoutesChanged = %+v, want the one remaining route", final)
	}
	activated := false
	for _, hs := range rec.hostnames {
		for _, h := range hs {
			if h.ID == made.HostnameID && h.Status == "active" && h.SSLStatus == "active" {
				activated = true
			}
		}
	}
	if !activated {
		t.Error("CustomHostnamesChanged never reported the hostname active after its TXT record was published")
	}
	if len(rec.dns) == 0 {
		t.Error("DNSChanged was never called")
	}
	configured := false
	for _, e := range rec.tunnels {
		if e.TunnelID == made.TunnelID && e.Config != nil && len(e.Config.Ingress) == 2 {
			configured = true
		}
	}
	if !configured {
		t.Errorf("TunnelChanged did not report the ingress configuration: %+v", rec.tunnels)
	}
}

// TestKVPropagationDelay checks that a KV write reaches the hook after the API call returned,
// without asserting how long it took.
func TestKVPropagationDelay(t *testing.T) {
	rec := &recorder{kvSeen: make(chan KVEvent, 1)}
	srv, ts := startServer(t, Config{Hooks: rec.hooks(), KVPropagationDelay: 20 * time.Millisecond})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: cloudflare.F(id.AccountID), Title: cloudflare.F("delayed")})
	must(t, "create namespace", err)
	_, err = api.KV.Namespaces.Values.Update(ctx, ns.ID, "k", kv.NamespaceValueUpdateParams{
		AccountID: cloudflare.F(id.AccountID), Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString("v")),
	})
	must(t, "write", err)
	// The API (and the runtime's direct read) see the value at once...
	if e, ok := srv.KVValue(ns.ID, "k"); !ok || string(e.Value) != "v" {
		t.Fatalf("KVValue right after the write = %+v, %v", e, ok)
	}
	// ...and the hook follows once the emulated propagation completes.
	select {
	case e := <-rec.kvSeen:
		if e.NamespaceID != ns.ID || e.Key != "k" || string(e.Entry.Value) != "v" {
			t.Errorf("propagated event = %+v", e)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("KVChanged never arrived")
	}
}

// fakeClock is an injectable clock the test advances by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestCustomHostnameAutoValidatesAfterTheConfiguredDelay(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	srv, ts := startServer(t, Config{Now: clock.Now, AutoValidate: time.Hour, SeedFallbackOrigin: "fallback"})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	zone := cloudflare.F(id.ZoneID)

	hn, err := api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{ZoneID: zone, Hostname: cloudflare.F("auto.customer.test")})
	must(t, "create", err)
	if hn.SSL.Status != "pending_validation" {
		t.Fatalf("new hostname ssl = %q", hn.SSL.Status)
	}
	clock.Advance(59 * time.Minute)
	got, err := api.CustomHostnames.Get(ctx, hn.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
	must(t, "get before the delay", err)
	if got.SSL.Status != "pending_validation" || got.Status != "pending" {
		t.Errorf("before AutoValidate: ssl %q status %q, want pending", got.SSL.Status, got.Status)
	}
	pending, err := api.CustomHostnames.List(ctx, custom_hostnames.CustomHostnameListParams{ZoneID: zone, SSLStatus: cloudflare.F(custom_hostnames.CustomHostnameListParamsSSLStatusPendingValidation)})
	must(t, "list pending", err)
	if len(pending.Result) != 1 {
		t.Errorf("ssl_status=pending_validation filter: %d results, want 1", len(pending.Result))
	}
	clock.Advance(time.Minute)
	got, err = api.CustomHostnames.Get(ctx, hn.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
	must(t, "get after the delay", err)
	if got.SSL.Status != "active" || got.Status != "active" {
		t.Errorf("after AutoValidate: ssl %q status %q, want active", got.SSL.Status, got.Status)
	}
	_, err = api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{ZoneID: zone, Hostname: cloudflare.F("auto.customer.test")})
	wantAPIError(t, "duplicate custom hostname", err, 409)
	_, err = api.CustomHostnames.Delete(ctx, hn.ID, custom_hostnames.CustomHostnameDeleteParams{ZoneID: zone})
	must(t, "delete", err)
	_, err = api.CustomHostnames.Get(ctx, hn.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
	wantAPIError(t, "get deleted hostname", err, 404)
}

func TestCustomHostnameWithoutAutoValidateWaitsForItsTXTRecord(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	srv, ts := startServer(t, Config{Now: clock.Now})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	zone := cloudflare.F(id.ZoneID)

	hn, err := api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{ZoneID: zone, Hostname: cloudflare.F("waits.customer.test")})
	must(t, "create", err)
	clock.Advance(365 * 24 * time.Hour)
	// A TXT record with the right name but a wrong value does not validate.
	_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.TXTRecordParam{
		Name: cloudflare.F(hn.OwnershipVerification.Name), Type: cloudflare.F(dns.TXTRecordTypeTXT), Content: cloudflare.F("wrong"), TTL: cloudflare.F(dns.TTL(1)),
	}})
	must(t, "publish wrong TXT", err)
	got, err := api.CustomHostnames.Get(ctx, hn.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
	must(t, "get", err)
	if got.SSL.Status != "pending_validation" || len(got.SSL.ValidationRecords) != 1 {
		t.Errorf("without its TXT record: ssl %q, %d validation records; want pending with one", got.SSL.Status, len(got.SSL.ValidationRecords))
	}
	// Publishing the quoted value (as TXT content often is) validates.
	txt, err := api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.TXTRecordParam{
		Name: cloudflare.F(hn.OwnershipVerification.Name), Type: cloudflare.F(dns.TXTRecordTypeTXT), Content: cloudflare.F(`"` + hn.OwnershipVerification.Value + `"`), TTL: cloudflare.F(dns.TTL(1)),
	}})
	must(t, "publish TXT", err)
	// Removing the record later keeps the hostname active, as an issued certificate stays.
	_, err = api.DNS.Records.Delete(ctx, txt.ID, dns.RecordDeleteParams{ZoneID: zone})
	must(t, "delete TXT", err)
	got, err = api.CustomHostnames.Get(ctx, hn.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
	must(t, "get", err)
	if got.SSL.Status != "active" {
		t.Errorf("after validation: ssl %q, want active", got.SSL.Status)
	}
}

func TestKVExpiration(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	srv, ts := startServer(t, Config{Now: clock.Now})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	acct := cloudflare.F(id.AccountID)
	ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F("ttl")})
	must(t, "create namespace", err)

	_, err = api.KV.Namespaces.Values.Update(ctx, ns.ID, "short", kv.NamespaceValueUpdateParams{
		AccountID: acct, Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString("v")), ExpirationTTL: cloudflare.F(30.0),
	})
	wantAPIError(t, "expiration_ttl below 60", err, 400)
	_, err = api.KV.Namespaces.Values.Update(ctx, ns.ID, "short", kv.NamespaceValueUpdateParams{
		AccountID: acct, Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString("v")), ExpirationTTL: cloudflare.F(60.0),
	})
	must(t, "write with ttl", err)
	resp, err := api.KV.Namespaces.Values.Get(ctx, ns.ID, "short", kv.NamespaceValueGetParams{AccountID: acct})
	must(t, "read before expiry", err)
	_ = resp.Body.Close()
	if got, want := resp.Header.Get("Expiration"), "1767225660"; got != want {
		t.Errorf("expiration header = %q, want %s", got, want)
	}
	keys, err := api.KV.Namespaces.Keys.List(ctx, ns.ID, kv.NamespaceKeyListParams{AccountID: acct})
	must(t, "list", err)
	if len(keys.Result) != 1 || keys.Result[0].Expiration != 1767225660 {
		t.Errorf("listed key = %+v", keys.Result)
	}
	clock.Advance(61 * time.Second)
	_, err = api.KV.Namespaces.Values.Get(ctx, ns.ID, "short", kv.NamespaceValueGetParams{AccountID: acct})
	wantAPIError(t, "read after expiry", err, 404)
	keys, err = api.KV.Namespaces.Keys.List(ctx, ns.ID, kv.NamespaceKeyListParams{AccountID: acct})
	must(t, "list after expiry", err)
	if len(keys.Result) != 0 {
		t.Errorf("expired key still listed: %+v", keys.Result)
	}
}

func TestScriptUploadValidation(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	upload := func(meta map[string]any, parts ...workerPart) error {
		_, err := api.Workers.Scripts.Update(ctx, "bad", workers.ScriptUpdateParams{AccountID: cloudflare.F(id.AccountID)}, option.WithRequestBody(workerUpload(t, meta, parts...)))
		return err
	}
	js := workerPart{"w.mjs", "application/javascript+module", []byte("export default {}")}
	wantAPIError(t, "main_module not uploaded", upload(map[string]any{"main_module": "missing.mjs"}, js), 400)
	wantAPIError(t, "binding to an unknown KV namespace", upload(map[string]any{
		"main_module": "w.mjs", "bindings": []map[string]any{{"type": "kv_namespace", "name": "X", "namespace_id": "0123"}},
	}, js), 400)

	// keep_bindings carries a secret over when a later upload does not resend it.
	must(t, "upload with secret", upload(map[string]any{"main_module": "w.mjs", "bindings": []map[string]any{{"type": "secret_text", "name": "S", "text": "s1"}}}, js))
	must(t, "upload keeping secrets", upload(map[string]any{"main_module": "w.mjs", "keep_bindings": []string{"secret_text"}}, js))
	sc, _ := srv.Script("bad")
	if len(sc.Bindings) != 1 || sc.Bindings[0]["text"] != "s1" {
		t.Errorf("bindings after keep_bindings upload = %v", sc.Bindings)
	}
}

func TestCloseCancelsDelayedHooks(t *testing.T) {
	rec := &recorder{kvSeen: make(chan KVEvent, 1)}
	srv, ts := startServer(t, Config{Hooks: rec.hooks(), KVPropagationDelay: time.Hour})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ns := createNamespace(t, api, id.AccountID, "n")
	_, err := api.KV.Namespaces.Values.Update(context.Background(), ns, "k", kv.NamespaceValueUpdateParams{
		AccountID: cloudflare.F(id.AccountID), Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString("v")),
	})
	must(t, "write", err)
	srv.timersMu.Lock()
	pending := len(srv.timers)
	srv.timersMu.Unlock()
	if pending != 1 {
		t.Fatalf("%d delayed hooks pending, want 1", pending)
	}
	must(t, "close", srv.Close())
	srv.timersMu.Lock()
	pending = len(srv.timers)
	srv.timersMu.Unlock()
	if pending != 0 {
		t.Errorf("%d delayed hooks still pending after Close", pending)
	}
}

func TestKVKeysWithEncodedSlashes(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	ns := createNamespace(t, newClient(ts.URL, id.APIToken, 0), id.AccountID, "paths")
	url := ts.URL + APIPrefix + "/accounts/" + id.AccountID + "/storage/kv/namespaces/" + ns + "/values/static%2Fapp%2Findex.html"
	if resp, env := rawRequest(t, "PUT", url, id.APIToken, strings.NewReader("<html>")); !env.Success {
		t.Fatalf("PUT a key with encoded slashes: HTTP %d %+v", resp.StatusCode, env.Errors)
	}
	if e, ok := srv.KVValue(ns, "static/app/index.html"); !ok || string(e.Value) != "<html>" {
		t.Errorf("key with slashes stored as %+v, %v", e, ok)
	}
}
