package localedge

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/workers"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// The edge answers a registered custom hostname with Cloudflare's 530 error 1016 until the
// hostname is active, which needs the zone's fallback origin active; an unregistered host
// keeps the plain 404; once active the request goes on to the Worker its route names (here
// never uploaded, which the edge reports as such: the gate was passed).
func TestEdgeHandler_CustomHostnameNeedsTheFallbackOrigin(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	srv, err := cfapi.New(cfapi.Config{StateDir: t.TempDir(), ZoneName: "kamui.test", Now: clock, AutoValidate: time.Second,
		FallbackActivation: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(t, "start the API", err)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	id := srv.Identity()
	api := cloudflare.NewClient(option.WithBaseURL(ts.URL+cfapi.APIPrefix+"/"), option.WithAPIToken(id.APIToken), option.WithMaxRetries(0))
	ctx, zone := context.Background(), cloudflare.F(id.ZoneID)
	_, err = api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: zone, Pattern: cloudflare.F("*/*"), Script: cloudflare.F("kamuidash-edge")})
	must(t, "create the catch-all route", err)
	_, err = api.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{ZoneID: zone, Hostname: cloudflare.F("www.shop.example")})
	must(t, "create the custom hostname", err)
	advance(2 * time.Second) // validated

	edge := newEdgeHandler(srv, func() string { return "" }, func(string) bool { return false }, nil)
	get := func(host string) (int, string) {
		rec := httptest.NewRecorder()
		edge.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://"+host+"/", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("www.shop.example"); code != 530 || !strings.Contains(body, "error code: 1016") {
		t.Errorf("validated, no fallback origin: HTTP %d %q; want 530 error 1016", code, body)
	}
	if code, _ := get("unknown.example"); code != http.StatusNotFound {
		t.Errorf("an unregistered host: HTTP %d, want 404 (it never reaches the zone)", code)
	}

	_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.AAAARecordParam{
		Name: cloudflare.F("fallback"), Type: cloudflare.F(dns.AAAARecordTypeAAAA), Content: cloudflare.F("100::"), Proxied: cloudflare.F(true), TTL: cloudflare.F(dns.TTL1),
	}})
	must(t, "create the placeholder record", err)
	_, err = api.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{ZoneID: zone, Origin: cloudflare.F("fallback.kamui.test")})
	must(t, "set the fallback origin", err)
	advance(2 * time.Second)
	if code, body := get("www.shop.example"); code != 530 {
		t.Errorf("fallback origin pending_deployment: HTTP %d %q; want 530", code, body)
	}
	advance(5 * time.Second)
	if code, body := get("www.shop.example"); code != http.StatusInternalServerError || !strings.Contains(body, "Worker not found") {
		t.Errorf("fallback origin active: HTTP %d %q; want the request routed to the (never uploaded) Worker", code, body)
	}
}
