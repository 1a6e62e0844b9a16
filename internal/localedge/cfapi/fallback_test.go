package cfapi

import (
	"context"
	"errors"
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
	if got := status(); got != "pending_deployment" {
		t.Errorf("without its proxied record: %q, want pending_deployment", got)
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

func isStatus(err error, code int) bool {
	var apiErr *cloudflare.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == code
}
