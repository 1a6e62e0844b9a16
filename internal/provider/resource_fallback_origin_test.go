package provider

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

const fallbackOriginAddr = "kamuidash_fallback_origin.this"

// activeFallbackOrigin starts the test edge's zone with an active fallback origin
// (fallback.kamui.test and its placeholder record), for tests about something else that
// model a SaaS zone already set up.
func activeFallbackOrigin(c *cfapi.Config) { c.SeedFallbackOrigin = "fallback" }

func fallbackOriginConfig(edge *testEdge, host, extra string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_fallback_origin" "this" {
  hostname = %q
  %s
}
`, host, extra)
}

// expectFallbackOrigin checks the edge's view: the fallback origin on host, active, and its
// record the only one of the zone, a proxied AAAA 100:: named host.
func (e *testEdge) expectFallbackOrigin(t *testing.T, host string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[fallbackOriginAddr].Primary.Attributes
		f, found, err := e.client(t).GetFallbackOrigin(context.Background(), e.Identity().ZoneID)
		if err != nil || !found || f.Origin != host || f.Status != "active" || !e.FallbackOriginActive() {
			return fmt.Errorf("fallback origin = %+v (found %v, %v), want %s active", f, found, err, host)
		}
		recs := e.DNSRecords()
		if len(recs) != 1 || recs[0].ID != attrs["dns_record_id"] || recs[0].Type != "AAAA" || recs[0].Content != "100::" ||
			!recs[0].Proxied || recs[0].Name != host {
			return fmt.Errorf("records = %+v, want only the proxied AAAA 100:: %s (state says %s)", recs, host, attrs["dns_record_id"])
		}
		return nil
	}
}

func (e *testEdge) nothingLeft(t *testing.T) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if _, found, err := e.client(t).GetFallbackOrigin(context.Background(), e.Identity().ZoneID); err != nil || found {
			return fmt.Errorf("after destroy the fallback origin is still there (%v)", err)
		}
		if n := len(e.DNSRecords()); n != 0 {
			return fmt.Errorf("%d DNS record(s) left after destroy", n)
		}
		return nil
	}
}

// TestAccFallbackOrigin_PlaceholderCreatedWithoutAnAnswerIsKept: the placeholder record was
// created but its answer never came. No AAAA record of the hostname existed when the create
// began (it looks first), so the identical one found afterwards is that create's: the create
// carries on with it. Before, the create failed with nothing in state, and the record stayed in
// the zone unless an apply came back to adopt it.
func TestAccFallbackOrigin_PlaceholderCreatedWithoutAnAnswerIsKept(t *testing.T) {
	edge := newTestEdgeBehind(t, loseAnswers(http.MethodPost, "/dns_records", nil), func(c *cfapi.Config) { c.FallbackActivation = time.Second })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.nothingLeft(t),
		Steps: []resource.TestStep{{
			Config: fallbackOriginConfig(edge, "fallback.kamui.test", ""),
			Check:  edge.expectFallbackOrigin(t, "fallback.kamui.test"),
		}},
	})
}

// TestAccFallbackOrigin_Lifecycle: created active (waiting out the edge's activation delay),
// an empty re-plan, the hostname moved in place (a new record, the old one deleted), imported
// by zone ID, destroyed with its record.
func TestAccFallbackOrigin_Lifecycle(t *testing.T) {
	edge := newTestEdge(t, func(c *cfapi.Config) { c.FallbackActivation = 2 * time.Second })
	zone := edge.Identity().ZoneID
	recordMoves := statecheck.CompareValue(compare.ValuesDiffer())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.nothingLeft(t),
		Steps: []resource.TestStep{
			{
				Config: fallbackOriginConfig(edge, "fallback.kamui.test", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(fallbackOriginAddr, tfjsonpath.New("id"), knownvalue.StringExact(zone)),
					statecheck.ExpectKnownValue(fallbackOriginAddr, tfjsonpath.New("zone_id"), knownvalue.StringExact(zone)),
					statecheck.ExpectKnownValue(fallbackOriginAddr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(fallbackOriginAddr, tfjsonpath.New("dns_record_id"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{32}$`))),
					recordMoves.AddStateValue(fallbackOriginAddr, tfjsonpath.New("dns_record_id")),
				},
				Check: edge.expectFallbackOrigin(t, "fallback.kamui.test"),
			},
			{
				Config: fallbackOriginConfig(edge, "fallback.kamui.test", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: fallbackOriginConfig(edge, "saas-fallback.kamui.test", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(fallbackOriginAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(fallbackOriginAddr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					recordMoves.AddStateValue(fallbackOriginAddr, tfjsonpath.New("dns_record_id")),
				},
				Check: edge.expectFallbackOrigin(t, "saas-fallback.kamui.test"),
			},
			{
				// terraform import kamuidash_fallback_origin.this <zone_id>
				ResourceName:            fallbackOriginAddr,
				ImportState:             true,
				ImportStateId:           zone,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

// TestAccFallbackOrigin_RecordDrift: the placeholder record deleted outside Terraform shows as
// a planned update (the fallback origin is no longer active), which recreates it and waits;
// one unproxied outside Terraform is rewritten in place; then the plan is empty again.
func TestAccFallbackOrigin_RecordDrift(t *testing.T) {
	edge := newTestEdge(t)
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(fallbackOriginAddr, plancheck.ResourceActionUpdate)}}
	recordID := func(s *terraform.State) string {
		return s.RootModule().Resources[fallbackOriginAddr].Primary.Attributes["dns_record_id"]
	}
	config := fallbackOriginConfig(edge, "fallback.kamui.test", "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.nothingLeft(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(edge.expectFallbackOrigin(t, "fallback.kamui.test"), func(s *terraform.State) error {
					return edge.client(t).DeleteDNSRecord(context.Background(), edge.Identity().ZoneID, recordID(s))
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           config,
				ConfigPlanChecks: update,
				Check: resource.ComposeTestCheckFunc(edge.expectFallbackOrigin(t, "fallback.kamui.test"), func(s *terraform.State) error {
					_, err := edge.client(t).DNS.Records.Edit(context.Background(), recordID(s), dns.RecordEditParams{
						ZoneID: cf.F(edge.Identity().ZoneID), Body: dns.AAAARecordParam{Proxied: cf.F(false)}})
					return err
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           config,
				ConfigPlanChecks: update,
				Check:            edge.expectFallbackOrigin(t, "fallback.kamui.test"),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccFallbackOrigin_AdoptsTheIdenticalRecord: a proxied AAAA 100:: someone made by hand is
// taken over instead of duplicated.
func TestAccFallbackOrigin_AdoptsTheIdenticalRecord(t *testing.T) {
	edge := newTestEdge(t)
	rec, err := edge.client(t).UpsertPlaceholderRecord(context.Background(), edge.Identity().ZoneID, "", "fallback.kamui.test", "made by hand")
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.nothingLeft(t),
		Steps: []resource.TestStep{{
			Config: fallbackOriginConfig(edge, "fallback.kamui.test", ""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(fallbackOriginAddr, tfjsonpath.New("dns_record_id"), knownvalue.StringExact(rec.ID)),
			},
			Check: edge.expectFallbackOrigin(t, "fallback.kamui.test"),
		}},
	})
}

// TestAccFallbackOrigin_Refusals: a hostname outside the platform zone is refused at plan
// time; a zone that already has a fallback origin asks for an import and changes nothing.
func TestAccFallbackOrigin_Refusals(t *testing.T) {
	edge := newTestEdge(t, activeFallbackOrigin)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      fallbackOriginConfig(edge, "fallback.elsewhere.example", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Fallback Origin Outside the Platform Zone`),
			},
			{
				Config:      fallbackOriginConfig(edge, "other-fallback.kamui.test", ""),
				ExpectError: regexp.MustCompile(`(?s)Fallback Origin Already Set.*terraform\s+import\s+<address>\s+` + edge.Identity().ZoneID),
			},
		},
	})
	if f, _, err := edge.client(t).GetFallbackOrigin(context.Background(), edge.Identity().ZoneID); err != nil || f.Origin != "fallback.kamui.test" {
		t.Errorf("the existing fallback origin changed: %+v, %v", f, err)
	}
	if n := len(edge.DNSRecords()); n != 1 {
		t.Errorf("%d DNS records; the refused create must add none", n)
	}
}

// TestAccFallbackOrigin_TimesOutWithTheLastStatus: an activation longer than timeouts.create
// fails naming the last status, and what was set up is in state (tainted), so the destroy
// that follows leaves nothing behind.
func TestAccFallbackOrigin_TimesOutWithTheLastStatus(t *testing.T) {
	edge := newTestEdge(t, func(c *cfapi.Config) { c.FallbackActivation = time.Hour })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.nothingLeft(t),
		Steps: []resource.TestStep{{
			Config:      fallbackOriginConfig(edge, "fallback.kamui.test", `timeouts = { create = "3s" }`),
			ExpectError: regexp.MustCompile(`(?s)Fallback Origin Not Active.*last\s+status\s+pending_deployment`),
		}},
	})
}

// The wait stops at deployment_timed_out (Cloudflare found no proxied record for ten minutes)
// with a diagnostic that says the record is missing, instead of waiting out its timeout.
func TestFallbackOriginWait_DeploymentTimedOut(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv, err := cfapi.New(cfapi.Config{StateDir: t.TempDir(), ZoneName: "kamui.test", Now: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	id := srv.Identity()
	c, err := kdcf.New(kdcf.Config{APIToken: id.APIToken, BaseURL: hs.URL + cfapi.APIPrefix, UserAgent: "kamuidash-test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	set, err := c.SetFallbackOrigin(ctx, id.ZoneID, "fallback.kamui.test") // and no record
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(11 * time.Minute)
	mu.Unlock()
	r := &fallbackOriginResource{data: &providerData{Client: c}, pollInterval: time.Millisecond, maxPollInterval: time.Millisecond}
	f, diags := r.waitActive(ctx, id.ZoneID, set, time.Hour, "timeouts.create")
	if !diags.HasError() || f.Status != kdcf.FallbackDeploymentTimedOut {
		t.Fatalf("status %q, diagnostics %v; want deployment_timed_out reported", f.Status, diags)
	}
	if d := diags[0]; d.Summary() != "Fallback Origin Deployment Timed Out" || !strings.Contains(d.Detail(), "no proxied A, AAAA or CNAME record") {
		t.Errorf("diagnostic %q: %q", d.Summary(), d.Detail())
	}
}
