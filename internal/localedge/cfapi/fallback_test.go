package cfapi

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
)

// The fallback origin goes initializing → pending_deployment (until its proxied record exists
// and the activation delay has passed) → active, times out without a record, refuses a host
// outside the zone, and survives a restart of the server on the same state dir.
func TestFallbackOriginLifecycle(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	dir := t.TempDir()
	srv, ts := startServer(t, Config{StateDir: dir, Now: clock, FallbackActivation: 30 * time.Second})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	zone := cloudflare.F(id.ZoneID)
	origin := "fallback." + id.ZoneName
	status := func() string {
		t.Helper()
		f, err := api.CustomHostnames.FallbackOrigin.Get(ctx, custom_hostnames.FallbackOriginGetParams{ZoneID: zone})
		must(t, "get the fallback origin", err)
		return string(f.Status)
	}

	if _, err := api.CustomHostnames.FallbackOrigin.Get(ctx, custom_hostnames.FallbackOriginGetParams{ZoneID: zone}); !isStatus(err, 404) {
		t.Fatalf("before any PUT: %v, want 404", err)
	}
	if _, err := api.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{ZoneID: zone, Origin: cloudflare.F("fallback.elsewhere.test")}); !isStatus(err, 400) {
		t.Errorf("an origin outside the zone: %v, want 400", err)
	}
	set, err := api.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{ZoneID: zone, Origin: cloudflare.F(origin)})
	must(t, "set the fallback origin", err)
	if set.Status != "initializing" || srv.FallbackOriginActive() {
		t.Fatalf("right after PUT: %q (active %v), want initializing", set.Status, srv.FallbackOriginActive())
	}
	advance(2 * time.Second)
	if f, err := api.CustomHostnames.FallbackOrigin.Get(ctx, custom_hostnames.FallbackOriginGetParams{ZoneID: zone}); err != nil ||
		f.Status != "pending_deployment" || len(f.Errors) == 0 {
		t.Errorf("without its proxied record: %+v %v, want pending_deployment saying the record is missing", f, err)
	}
	_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.AAAARecordParam{
		Name: cloudflare.F("fallback"), Type: cloudflare.F(dns.AAAARecordTypeAAAA), Content: cloudflare.F("100::"), Proxied: cloudflare.F(true), TTL: cloudflare.F(dns.TTL(1)),
	}})
	must(t, "create the proxied placeholder record", err)
	if got := status(); got != "pending_deployment" {
		t.Errorf("within the activation delay: %q, want pending_deployment", got)
	}
	advance(30 * time.Second)
	if got := status(); got != "active" || !srv.FallbackOriginActive() {
		t.Errorf("after the delay with the record: %q (active %v), want active", got, srv.FallbackOriginActive())
	}

	// A restart on the same state keeps it.
	again, ts2 := startServer(t, Config{StateDir: dir, Now: clock, FallbackActivation: 30 * time.Second})
	if !again.FallbackOriginActive() {
		t.Error("the fallback origin did not survive a restart")
	}
	api = newClient(ts2.URL, id.APIToken, 0)

	// Pointed at a name with no record, it times out.
	_, err = api.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{ZoneID: zone, Origin: cloudflare.F("nothing." + id.ZoneName)})
	must(t, "move the fallback origin", err)
	advance(11 * time.Minute)
	f, err := api.CustomHostnames.FallbackOrigin.Get(ctx, custom_hostnames.FallbackOriginGetParams{ZoneID: zone})
	must(t, "get the fallback origin", err)
	if f.Status != "deployment_timed_out" || len(f.Errors) == 0 {
		t.Errorf("without a record for 11 minutes: %q %v, want deployment_timed_out with an error", f.Status, f.Errors)
	}
	del, err := api.CustomHostnames.FallbackOrigin.Delete(ctx, custom_hostnames.FallbackOriginDeleteParams{ZoneID: zone})
	must(t, "delete the fallback origin", err)
	if del.Status != "pending_deletion" || again.FallbackOriginActive() {
		t.Errorf("delete answered %q", del.Status)
	}
}

// A validated custom hostname stays pending, with Cloudflare's "Zone does not have a fallback
// origin set." among its verification errors, until the zone's fallback origin is active; its
// certificate does not wait. Deleting the fallback origin makes it pending again.
func TestCustomHostnameWaitsForTheFallbackOrigin(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	srv, ts := startServer(t, Config{Now: clock, AutoValidate: time.Second})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	zone := cloudflare.F(id.ZoneID)
	get := func(hostID string) *custom_hostnames.CustomHostnameGetResponse {
		t.Helper()
		h, err := api.CustomHostnames.Get(ctx, hostID, custom_hostnames.CustomHostnameGetParams{ZoneID: zone})
		must(t, "get the custom hostname", err)
		return h
	}

	h, err := api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{ZoneID: zone, Hostname: cloudflare.F("www.shop.example")})
	must(t, "create a custom hostname", err)
	advance(2 * time.Second) // validated by Config.AutoValidate
	got := get(h.ID)
	if got.Status != "pending" || got.SSL.Status != "active" || !slices.Contains(got.VerificationErrors, "Zone does not have a fallback origin set.") {
		t.Fatalf("validated, no fallback origin: status %q ssl %q errors %q; want pending, active, the fallback error", got.Status, got.SSL.Status, got.VerificationErrors)
	}
	if st := srv.CustomHostnames(); len(st) != 1 || st[0].Status != "pending" {
		t.Errorf("the runtime sees %+v, want it pending", st)
	}

	_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.AAAARecordParam{
		Name: cloudflare.F("fallback"), Type: cloudflare.F(dns.AAAARecordTypeAAAA), Content: cloudflare.F("100::"), Proxied: cloudflare.F(true), TTL: cloudflare.F(dns.TTL(1)),
	}})
	must(t, "create the proxied placeholder record", err)
	_, err = api.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{ZoneID: zone, Origin: cloudflare.F("fallback." + id.ZoneName)})
	must(t, "set the fallback origin", err)
	if got := get(h.ID); got.Status != "pending" {
		t.Errorf("while the fallback origin initializes: %q, want pending", got.Status)
	}
	advance(2 * time.Second)
	if got := get(h.ID); got.Status != "active" || len(got.VerificationErrors) != 0 {
		t.Errorf("with an active fallback origin: %q %q, want active without errors", got.Status, got.VerificationErrors)
	}
	if st := srv.CustomHostnames(); len(st) != 1 || st[0].Status != "active" {
		t.Errorf("the runtime sees %+v, want it active", st)
	}

	_, err = api.CustomHostnames.FallbackOrigin.Delete(ctx, custom_hostnames.FallbackOriginDeleteParams{ZoneID: zone})
	must(t, "delete the fallback origin", err)
	if got := get(h.ID); got.Status != "pending" || got.SSL.Status != "active" {
		t.Errorf("after the fallback origin's deletion: %q ssl %q, want pending with its certificate kept", got.Status, got.SSL.Status)
	}
}

// Config.SeedFallbackOrigin starts a zone with an active fallback origin and its proxied
// placeholder record, once: a restart finds them and adds nothing.
func TestSeedFallbackOrigin(t *testing.T) {
	dir := t.TempDir()
	srv, ts := startServer(t, Config{StateDir: dir, SeedFallbackOrigin: "fallback", FallbackActivation: time.Minute})
	id := srv.Identity()
	f, err := newClient(ts.URL, id.APIToken, 0).CustomHostnames.FallbackOrigin.Get(context.Background(), custom_hostnames.FallbackOriginGetParams{ZoneID: cloudflare.F(id.ZoneID)})
	must(t, "get the fallback origin", err)
	recs := srv.DNSRecords()
	if f.Origin != "fallback."+id.ZoneName || f.Status != "active" || len(recs) != 1 ||
		recs[0].Type != "AAAA" || recs[0].Content != "100::" || !recs[0].Proxied || recs[0].Name != f.Origin {
		t.Fatalf("seeded: %q %q, records %+v; want fallback.<zone> active with its proxied AAAA 100::", f.Origin, f.Status, recs)
	}
	again, _ := startServer(t, Config{StateDir: dir, SeedFallbackOrigin: "fallback"})
	if n := len(again.DNSRecords()); n != 1 || !again.FallbackOriginActive() {
		t.Errorf("after a restart: %d records, active %v; want the one seeded record, still active", n, again.FallbackOriginActive())
	}
}

func isStatus(err error, code int) bool {
	var apiErr *cloudflare.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == code
}
