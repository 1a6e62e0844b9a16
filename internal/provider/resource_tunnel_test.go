package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/rulesets"
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

const tunnelAddr = "kamuidash_tunnel.edge"

func tunnelConfig(edge *testEdge, origin string) string {
	return tunnelConfigNamed(edge, "kamuidash-test", origin)
}

func tunnelConfigNamed(edge *testEdge, name, origin string) string {
	return tunnelConfigWith(edge, name, origin, "")
}

// tunnelConfigWith is the tunnel's configuration with the lines extra added to its block.
func tunnelConfigWith(edge *testEdge, name, origin, extra string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_tunnel" "edge" {
  name            = %q
  origin_hostname = %q
  router_service  = "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080"
%s}
`, name, origin, extra)
}

// expectTunnelNamed checks the tunnel's name on the edge and in its Cache Rule's description.
func (e *testEdge) expectTunnelNamed(name string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[tunnelAddr].Primary.Attributes
		t, ok := e.Tunnel(attrs["id"])
		if !ok || t.Name != name {
			return fmt.Errorf("tunnel %s on the edge: %+v, want it named %q", attrs["id"], t, name)
		}
		rs, _ := e.Entrypoint(cfapi.CachePhase)
		for _, r := range rs.Rules {
			if r.ID == attrs["cache_rule_id"] && !strings.Contains(r.Description, quote(name)) {
				return fmt.Errorf("Cache Rule description %q does not name the tunnel %q", r.Description, name)
			}
		}
		return nil
	}
}

// expectTunnelWiring checks the edge's view: ingress to the router with a catch-all, a
// proxied CNAME from the origin hostname into the tunnel, and the Cache Rule bypassing the
// cache for the origin hostname.
func (e *testEdge) expectTunnelWiring(origin string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[tunnelAddr].Primary.Attributes
		t, ok := e.Tunnel(attrs["id"])
		if !ok || t.Config == nil {
			return fmt.Errorf("tunnel %s has no configuration on the edge", attrs["id"])
		}
		in := t.Config.Ingress
		if len(in) != 2 || in[0].Hostname != origin || in[0].Service != "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080" ||
			in[1].Hostname != "" || in[1].Service != "http_status:404" {
			return fmt.Errorf("ingress = %+v", in)
		}
		if err := e.expectBypassRule(attrs["id"], attrs["cache_rule_id"], origin); err != nil {
			return err
		}
		for _, rec := range e.DNSRecords() {
			if rec.ID == attrs["dns_record_id"] {
				if rec.Type != "CNAME" || rec.Name != origin || rec.Content != attrs["id"]+".cfargotunnel.com" || !rec.Proxied {
					return fmt.Errorf("origin record = %+v", rec)
				}
				return nil
			}
		}
		return fmt.Errorf("no DNS record %s", attrs["dns_record_id"])
	}
}

// expectBypassRule finds the tunnel's rule in the zone's Cache Rules and checks it is exactly
// the bypass for origin, and the only rule with its ref.
func (e *testEdge) expectBypassRule(tunnelID, ruleID, origin string) error {
	rs, _ := e.Entrypoint(cfapi.CachePhase)
	var found []cfapi.RulesetRule
	for _, r := range rs.Rules {
		if r.Ref == "kamuidash_tunnel_"+tunnelID {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return fmt.Errorf("%d Cache Rules carry the tunnel's ref, want 1: %+v", len(found), rs.Rules)
	}
	r := found[0]
	var params map[string]any
	_ = json.Unmarshal(r.ActionParameters, &params)
	if r.ID != ruleID || r.Action != "set_cache_settings" || !r.Enabled || r.Expression != `(http.host eq "`+origin+`")` ||
		len(params) != 1 || params["cache"] != false {
		return fmt.Errorf("Cache Rule = %+v (state says %s)", r, ruleID)
	}
	return nil
}

// addForeignCacheRule adds a Cache Rule someone else owns at the top of the zone's Cache
// Rules, creating the entrypoint if needed, and returns its ID.
func (e *testEdge) addForeignCacheRule(t *testing.T) string {
	t.Helper()
	c, ctx, zone := e.client(t), context.Background(), e.Identity().ZoneID
	rule := rulesets.SetCacheSettingsRuleParam{
		Action:           cf.F(rulesets.SetCacheSettingsRuleActionSetCacheSettings),
		ActionParameters: cf.F(rulesets.SetCacheSettingsRuleActionParametersParam{Cache: cf.F(true)}),
		Expression:       cf.F(`(http.host eq "static.kamui.test")`),
		Description:      cf.F("cache everything on the static host (not ours)"),
		Ref:              cf.F("someone_else"),
	}
	rs, ok := e.Entrypoint(cfapi.CachePhase)
	if !ok {
		res, err := c.Rulesets.New(ctx, rulesets.RulesetNewParams{ZoneID: cf.F(zone), Kind: cf.F(rulesets.KindZone), Name: cf.F("default"),
			Phase: cf.F(rulesets.PhaseHTTPRequestCacheSettings), Rules: cf.F([]rulesets.RulesetNewParamsRuleUnion{rule})})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rules[0].ID
	}
	res, err := c.Rulesets.Rules.New(ctx, rs.ID, rulesets.RuleNewParams{ZoneID: cf.F(zone), Body: rulesets.RuleNewParamsBodySetCacheSettingsRule{
		Position: cf.F[rulesets.RuleNewParamsBodySetCacheSettingsRulePositionUnion](
			rulesets.RuleNewParamsBodySetCacheSettingsRulePositionIndexPosition{Index: cf.F(int64(1))}),
		SetCacheSettingsRuleParam: rule,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Rules[0].ID
}

// onlyForeignRuleLeft is a CheckDestroy: no DNS record and none of our Cache Rules remain, and
// the rule someone else owns is untouched.
func (e *testEdge) onlyForeignRuleLeft(foreignID *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if n := len(e.DNSRecords()); n != 0 {
			return fmt.Errorf("%d DNS record(s) left after destroy", n)
		}
		rs, _ := e.Entrypoint(cfapi.CachePhase)
		if len(rs.Rules) != 1 || rs.Rules[0].ID != *foreignID || rs.Rules[0].Ref != "someone_else" || rs.Rules[0].Version != 1 {
			return fmt.Errorf("after destroy the Cache Rules are %+v; want only the untouched foreign rule %s", rs.Rules, *foreignID)
		}
		return nil
	}
}

func TestAccTunnel_Lifecycle(t *testing.T) {
	edge := newTestEdge(t)
	sameTunnel := statecheck.CompareValue(compare.ValuesSame())
	sameRule := statecheck.CompareValue(compare.ValuesSame())
	var foreign string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.onlyForeignRuleLeft(&foreign),
		Steps: []resource.TestStep{
			{
				// The zone has no Cache Rules yet: the entrypoint is created with our rule.
				Config: tunnelConfig(edge, "origin.kamui.test"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tunnelAddr, tfjsonpath.New("token"), knownvalue.StringRegexp(regexp.MustCompile(`.{20,}`))),
					statecheck.ExpectKnownValue(tunnelAddr, tfjsonpath.New("cache_rule_id"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{32}$`))),
					sameTunnel.AddStateValue(tunnelAddr, tfjsonpath.New("id")),
					sameRule.AddStateValue(tunnelAddr, tfjsonpath.New("cache_rule_id")),
				},
				Check: edge.expectTunnelWiring("origin.kamui.test"),
			},
			{
				// Moving the origin hostname is an in-place update of ingress, DNS and the
				// Cache Rule (same rule, new expression); a rule someone else adds meanwhile
				// is left alone.
				PreConfig: func() { foreign = edge.addForeignCacheRule(t) },
				Config:    tunnelConfig(edge, "origin2.kamui.test"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tunnelAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameTunnel.AddStateValue(tunnelAddr, tfjsonpath.New("id")),
					sameRule.AddStateValue(tunnelAddr, tfjsonpath.New("cache_rule_id")),
				},
				Check: edge.expectTunnelWiring("origin2.kamui.test"),
			},
			{
				// Import finds the Cache Rule by its ref.
				ResourceName:      tunnelAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
		},
	})
}

// TestAccTunnel_RenamedInPlace: a new name renames the tunnel, keeping its ID, its connector
// token, its CNAME and its Cache Rule, so the connectors running with the token go on serving;
// a rename made outside Terraform is put back the same way; a name another tunnel has is
// refused with nothing changed.
func TestAccTunnel_RenamedInPlace(t *testing.T) {
	edge := newTestEdge(t)
	const origin = "origin.kamui.test"
	sameID, sameToken := statecheck.CompareValue(compare.ValuesSame()), statecheck.CompareValue(compare.ValuesSame())
	sameRecord, sameRule := statecheck.CompareValue(compare.ValuesSame()), statecheck.CompareValue(compare.ValuesSame())
	// Each step's checks are new values for the same comparisons.
	kept := func() []statecheck.StateCheck {
		return []statecheck.StateCheck{
			sameID.AddStateValue(tunnelAddr, tfjsonpath.New("id")),
			sameToken.AddStateValue(tunnelAddr, tfjsonpath.New("token")),
			sameRecord.AddStateValue(tunnelAddr, tfjsonpath.New("dns_record_id")),
			sameRule.AddStateValue(tunnelAddr, tfjsonpath.New("cache_rule_id")),
		}
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tunnelAddr, plancheck.ResourceActionUpdate)}}
	var id string
	ctx, c, account := context.Background(), edge.client(t), edge.Identity().AccountID
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            tunnelConfig(edge, origin),
				ConfigStateChecks: kept(),
				Check: resource.ComposeTestCheckFunc(edge.expectTunnelNamed("kamuidash-test"),
					func(s *terraform.State) error { id = s.RootModule().Resources[tunnelAddr].Primary.ID; return nil }),
			},
			{
				Config:            tunnelConfigNamed(edge, "kamuidash-renamed", origin),
				ConfigPlanChecks:  update,
				ConfigStateChecks: kept(),
				Check:             resource.ComposeTestCheckFunc(edge.expectTunnelNamed("kamuidash-renamed"), edge.expectTunnelWiring(origin)),
			},
			{
				// Renamed in the dashboard: the plan shows the name coming back, in place.
				PreConfig: func() {
					if err := c.RenameTunnel(ctx, account, id, "renamed-in-the-dashboard"); err != nil {
						t.Fatal(err)
					}
				},
				Config:            tunnelConfigNamed(edge, "kamuidash-renamed", origin),
				ConfigPlanChecks:  update,
				ConfigStateChecks: kept(),
				Check:             resource.ComposeTestCheckFunc(edge.expectTunnelNamed("kamuidash-renamed"), edge.expectTunnelWiring(origin)),
			},
			{
				PreConfig: func() {
					if _, err := c.CreateTunnel(ctx, account, "taken"); err != nil {
						t.Fatal(err)
					}
				},
				Config:      tunnelConfigNamed(edge, "taken", origin),
				ExpectError: regexp.MustCompile(`(?s)Tunnel Name Taken.*another\s+tunnel\s+named\s+"taken".*nothing\s+was\s+changed`),
			},
			{
				// The refused rename changed nothing, on the edge or in the state.
				Config:           tunnelConfigNamed(edge, "kamuidash-renamed", origin),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            edge.expectTunnelNamed("kamuidash-renamed"),
			},
		},
	})
}

// tunnelConfigRotated is tunnelConfig of origin.kamui.test with token_rotation set to rotation
// ("": unset).
func tunnelConfigRotated(edge *testEdge, rotation string) string {
	line := ""
	if rotation != "" {
		line = fmt.Sprintf("  token_rotation  = %q\n", rotation)
	}
	return tunnelConfigWith(edge, "kamuidash-test", "origin.kamui.test", line)
}

// expectCurrentToken checks that the state holds the token the tunnel has now.
func (e *testEdge) expectCurrentToken(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[tunnelAddr].Primary.Attributes
		token, err := e.client(t).TunnelToken(context.Background(), e.Identity().AccountID, attrs["id"])
		if err != nil {
			return err
		}
		if attrs["token"] != token {
			return errors.New("the state's token is not the tunnel's current one")
		}
		return nil
	}
}

// TestAccTunnel_TokenRotation: changing token_rotation gives the tunnel a new secret, so a
// new token, in place; setting it for the first time or removing it rotates nothing; and a
// token rotated outside Terraform is read back on refresh.
func TestAccTunnel_TokenRotation(t *testing.T) {
	edge := newTestEdge(t)
	const origin = "origin.kamui.test"
	sameID := statecheck.CompareValue(compare.ValuesSame())
	tokens := statecheck.CompareValue(compare.ValuesDiffer())
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(tunnelAddr, plancheck.ResourceActionUpdate),
		plancheck.ExpectUnknownValue(tunnelAddr, tfjsonpath.New("token")),
	}}
	noRotation := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectKnownValue(tunnelAddr, tfjsonpath.New("token"), knownvalue.NotNull()),
	}}
	var id, before string
	keep := func(s *terraform.State) error {
		attrs := s.RootModule().Resources[tunnelAddr].Primary.Attributes
		id, before = attrs["id"], attrs["token"]
		return nil
	}
	unchanged := func(s *terraform.State) error {
		if s.RootModule().Resources[tunnelAddr].Primary.Attributes["token"] != before {
			return errors.New("the token changed")
		}
		return nil
	}
	ctx, c, account := context.Background(), edge.client(t), edge.Identity().AccountID
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            tunnelConfig(edge, origin),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(tunnelAddr, tfjsonpath.New("id")), tokens.AddStateValue(tunnelAddr, tfjsonpath.New("token"))},
				Check:             resource.ComposeTestCheckFunc(edge.expectCurrentToken(t), keep),
			},
			{
				// Set for the first time (as after an import): nothing rotates.
				Config:           tunnelConfigRotated(edge, "2026-12"),
				ConfigPlanChecks: noRotation,
				Check:            resource.ComposeTestCheckFunc(unchanged, edge.expectCurrentToken(t)),
			},
			{
				Config:            tunnelConfigRotated(edge, "2027-01"),
				ConfigPlanChecks:  update,
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(tunnelAddr, tfjsonpath.New("id")), tokens.AddStateValue(tunnelAddr, tfjsonpath.New("token"))},
				Check:             resource.ComposeTestCheckFunc(edge.expectCurrentToken(t), edge.expectTunnelWiring(origin), keep),
			},
			{
				// Removed: nothing rotates.
				Config:           tunnelConfig(edge, origin),
				ConfigPlanChecks: noRotation,
				Check:            resource.ComposeTestCheckFunc(unchanged, edge.expectCurrentToken(t)),
			},
			{
				// Rotated in the dashboard: the refresh reads the new token.
				PreConfig: func() {
					if err := c.RotateTunnelSecret(ctx, account, id); err != nil {
						t.Fatal(err)
					}
				},
				RefreshState: true,
				Check:        edge.expectCurrentToken(t),
			},
			{
				ResourceName:            tunnelAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"token_rotation"},
			},
		},
	})
}

// TestAccTunnel_TokenUnreadAfterRotation: a rotation whose new token cannot be read fails the
// apply without keeping the old token (it connects nowhere now) or asking for another
// rotation; the next refresh reads the new token and the plan is empty.
func TestAccTunnel_TokenUnreadAfterRotation(t *testing.T) {
	var armed, failing atomic.Bool // armed: the next rotation makes the token reads fail
	edge := newTestEdgeBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/token") {
				http.Error(w, "unavailable", http.StatusInternalServerError)
				return
			}
			next.ServeHTTP(w, r)
			if r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/cfd_tunnel/") && armed.Load() {
				failing.Store(true)
			}
		})
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: tunnelConfigRotated(edge, "a")},
			{
				PreConfig:   func() { armed.Store(true) },
				Config:      tunnelConfigRotated(edge, "b"),
				ExpectError: regexp.MustCompile(`(?s)Unable to Read Tunnel Token.*old\s+token\s+no\s+longer\s+connects`),
			},
			{
				PreConfig:        func() { armed.Store(false); failing.Store(false) },
				Config:           tunnelConfigRotated(edge, "b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            edge.expectCurrentToken(t),
			},
		},
	})
}

// TestAccTunnel_RenameRacedIsRefusedCleanly: a tunnel given the new name between the
// provider's look-up and its rename (another apply, the dashboard) makes the API refuse the
// rename; that is reported as the name taken, and the tunnel keeps its name.
func TestAccTunnel_RenameRacedIsRefusedCleanly(t *testing.T) {
	var race atomic.Pointer[func()] // run before the next rename is served
	edge := newTestEdgeBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/cfd_tunnel/") {
				if f := race.Swap(nil); f != nil {
					(*f)()
				}
			}
			next.ServeHTTP(w, r)
		})
	})
	const origin = "origin.kamui.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: tunnelConfig(edge, origin)},
			{
				PreConfig: func() {
					another := func() {
						if _, err := edge.client(t).CreateTunnel(context.Background(), edge.Identity().AccountID, "raced"); err != nil {
							t.Error(err)
						}
					}
					race.Store(&another)
				},
				Config:      tunnelConfigNamed(edge, "raced", origin),
				ExpectError: regexp.MustCompile(`(?s)Tunnel Name Taken.*another\s+tunnel\s+named\s+"raced".*nothing\s+was\s+changed`),
			},
			{
				Config:           tunnelConfig(edge, origin),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            resource.ComposeTestCheckFunc(edge.expectTunnelNamed("kamuidash-test"), edge.expectTunnelWiring(origin)),
			},
		},
	})
}

// TestAccTunnel_CacheRuleDrift: the tunnel's Cache Rule deleted, changed or disabled outside
// Terraform shows as a planned update, which restores it (the zone's other rule untouched), and
// so does a deleted origin CNAME; then the plan is empty again.
func TestAccTunnel_CacheRuleDrift(t *testing.T) {
	edge := newTestEdge(t)
	var foreign string
	sameRule := statecheck.CompareValue(compare.ValuesSame())
	ruleID := func(s *terraform.State) (string, string) {
		attrs := s.RootModule().Resources[tunnelAddr].Primary.Attributes
		rs, _ := edge.Entrypoint(cfapi.CachePhase)
		return rs.ID, attrs["cache_rule_id"]
	}
	editOurs := func(s *terraform.State, body rulesets.SetCacheSettingsRuleParam) error {
		rsID, id := ruleID(s)
		_, err := edge.client(t).Rulesets.Rules.Edit(context.Background(), rsID, id, rulesets.RuleEditParams{
			ZoneID: cf.F(edge.Identity().ZoneID), Body: rulesets.RuleEditParamsBodySetCacheSettingsRule{SetCacheSettingsRuleParam: body}})
		return err
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tunnelAddr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.onlyForeignRuleLeft(&foreign),
		Steps: []resource.TestStep{
			{
				// The zone already has Cache Rules: ours is appended after the foreign one.
				PreConfig: func() { foreign = edge.addForeignCacheRule(t) },
				Config:    tunnelConfig(edge, "origin.kamui.test"),
				Check: resource.ComposeTestCheckFunc(edge.expectTunnelWiring("origin.kamui.test"), func(s *terraform.State) error {
					rs, _ := edge.Entrypoint(cfapi.CachePhase)
					if _, id := ruleID(s); len(rs.Rules) != 2 || rs.Rules[0].ID != foreign || rs.Rules[1].ID != id {
						return fmt.Errorf("Cache Rules = %+v; want the foreign rule, then ours", rs.Rules)
					}
					// Then someone deletes our rule.
					rsID, id := ruleID(s)
					return edge.client(t).DeleteCacheRule(context.Background(), edge.Identity().ZoneID, rsID, id)
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           tunnelConfig(edge, "origin.kamui.test"),
				ConfigPlanChecks: update,
				// Recreated (a new ID), then kept by the repairs below.
				ConfigStateChecks: []statecheck.StateCheck{sameRule.AddStateValue(tunnelAddr, tfjsonpath.New("cache_rule_id"))},
				Check: resource.ComposeTestCheckFunc(edge.expectTunnelWiring("origin.kamui.test"), func(s *terraform.State) error {
					// Then someone turns caching back on for the origin, on another host.
					return editOurs(s, rulesets.SetCacheSettingsRuleParam{
						Action:           cf.F(rulesets.SetCacheSettingsRuleActionSetCacheSettings),
						ActionParameters: cf.F(rulesets.SetCacheSettingsRuleActionParametersParam{Cache: cf.F(true)}),
						Expression:       cf.F(`(http.host eq "elsewhere.kamui.test")`),
					})
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				// Repaired in place: the same rule.
				Config:            tunnelConfig(edge, "origin.kamui.test"),
				ConfigPlanChecks:  update,
				ConfigStateChecks: []statecheck.StateCheck{sameRule.AddStateValue(tunnelAddr, tfjsonpath.New("cache_rule_id"))},
				Check: resource.ComposeTestCheckFunc(edge.expectTunnelWiring("origin.kamui.test"), func(s *terraform.State) error {
					// Then someone disables it.
					return editOurs(s, rulesets.SetCacheSettingsRuleParam{Enabled: cf.F(false)})
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config:            tunnelConfig(edge, "origin.kamui.test"),
				ConfigPlanChecks:  update,
				ConfigStateChecks: []statecheck.StateCheck{sameRule.AddStateValue(tunnelAddr, tfjsonpath.New("cache_rule_id"))},
				Check: resource.ComposeTestCheckFunc(edge.expectTunnelWiring("origin.kamui.test"), func(s *terraform.State) error {
					// Then someone deletes the origin CNAME: planned as an update too.
					recID := s.RootModule().Resources[tunnelAddr].Primary.Attributes["dns_record_id"]
					return edge.client(t).DeleteDNSRecord(context.Background(), edge.Identity().ZoneID, recID)
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config:            tunnelConfig(edge, "origin.kamui.test"),
				ConfigPlanChecks:  update,
				ConfigStateChecks: []statecheck.StateCheck{sameRule.AddStateValue(tunnelAddr, tfjsonpath.New("cache_rule_id"))},
				Check:             edge.expectTunnelWiring("origin.kamui.test"),
			},
			{
				Config: tunnelConfig(edge, "origin.kamui.test"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccTunnel_DeletedInDashboardIsRecreatedCleanly: a tunnel deleted outside Terraform (the
// dashboard leaves its CNAME behind, pointing at the dead tunnel) is planned as a create, and
// the apply routes the origin into the new tunnel through that same record instead of adding a
// second CNAME for the hostname (which Cloudflare refuses, so the create could never succeed).
func TestAccTunnel_DeletedInDashboardIsRecreatedCleanly(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: tunnelConfig(edge, "origin.kamui.test"),
				Check: func(s *terraform.State) error {
					id := s.RootModule().Resources[tunnelAddr].Primary.Attributes["id"]
					return edge.client(t).DeleteTunnel(context.Background(), edge.Identity().AccountID, id)
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: tunnelConfig(edge, "origin.kamui.test"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tunnelAddr, plancheck.ResourceActionCreate)},
				},
				Check: resource.ComposeTestCheckFunc(edge.expectTunnelWiring("origin.kamui.test"), func(*terraform.State) error {
					var cnames []string
					for _, rec := range edge.DNSRecords() {
						if rec.Name == "origin.kamui.test" {
							cnames = append(cnames, rec.Type+" "+rec.Content)
						}
					}
					if len(cnames) != 1 {
						return fmt.Errorf("records for the origin hostname after the tunnel was recreated: %v; want only the CNAME into the new tunnel", cnames)
					}
					return nil
				}),
			},
			{
				Config: tunnelConfig(edge, "origin.kamui.test"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccTunnel_CreatedWithoutAnAnswerIsKept: the API created the tunnel but its answer never
// came (a proxy's 502; a POST is never retried). No tunnel had the name when the create began:
// the create carries on with the one found, where it failed and left a tunnel the next apply
// refused as existing.
func TestAccTunnel_CreatedWithoutAnAnswerIsKept(t *testing.T) {
	edge := newTestEdgeBehind(t, loseAnswers(http.MethodPost, "/cfd_tunnel", nil))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: tunnelConfig(edge, "origin.kamui.test"),
			Check: resource.ComposeTestCheckFunc(
				edge.expectTunnelWiring("origin.kamui.test"),
				func(s *terraform.State) error {
					id, found, err := edge.client(t).FindTunnel(context.Background(), edge.Identity().AccountID, "kamuidash-test")
					if err != nil || !found {
						return fmt.Errorf("the tunnel created is gone: found %v, %v", found, err)
					}
					if got := s.RootModule().Resources[tunnelAddr].Primary.ID; got != id {
						return fmt.Errorf("state holds tunnel %s, the account's is %s", got, id)
					}
					return nil
				},
			),
		}},
	})
}

// TestAccTunnel_PartsCreatedWithoutAnAnswerAreKept: a part of the tunnel's wiring was created
// but its answer never came (a proxy's 502; a POST is never retried). The create carries on
// with what it finds: a Cache Rule with the tunnel's ref, a CNAME for the origin hostname
// into this tunnel (none routed into a live tunnel when the create began, and a dead
// tunnel's is taken over by an update, not a create). Before, the create failed and the
// tunnel was tainted: the next apply replaced it, and a destroy left the CNAME behind, whose
// ID the state never had.
func TestAccTunnel_PartsCreatedWithoutAnAnswerAreKept(t *testing.T) {
	for _, tc := range []struct {
		name, suffix string
		foreignFirst bool // the zone has a Cache Rule of someone else's: ours is added to its entrypoint
	}{
		{name: "origin CNAME", suffix: "/dns_records", foreignFirst: true},
		{name: "Cache Rule added to the entrypoint", suffix: "/rules", foreignFirst: true},
		{name: "Cache Rules entrypoint", suffix: "/rulesets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edge := newTestEdgeBehind(t, loseAnswers(http.MethodPost, tc.suffix, nil))
			var foreign string
			if tc.foreignFirst {
				foreign = edge.addForeignCacheRule(t)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy: func(s *terraform.State) error {
					if tc.foreignFirst {
						return edge.onlyForeignRuleLeft(&foreign)(s)
					}
					if n := len(edge.DNSRecords()); n != 0 {
						return fmt.Errorf("%d DNS record(s) left after destroy", n)
					}
					if rs, _ := edge.Entrypoint(cfapi.CachePhase); len(rs.Rules) != 0 {
						return fmt.Errorf("Cache Rules left after destroy: %+v", rs.Rules)
					}
					return nil
				},
				Steps: []resource.TestStep{
					{
						Config: tunnelConfig(edge, "origin.kamui.test"),
						Check: resource.ComposeTestCheckFunc(
							edge.expectTunnelWiring("origin.kamui.test"),
							func(*terraform.State) error {
								if n := len(edge.DNSRecords()); n != 1 {
									return fmt.Errorf("%d DNS records, want the one CNAME", n)
								}
								return nil
							},
						),
					},
					{
						Config: tunnelConfig(edge, "origin.kamui.test"),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
					},
				},
			})
		})
	}
}

// TestAccTunnel_ExistingNameAsksForImport: a tunnel of the same name already in the account
// (made in the dashboard, or by another configuration) is refused with the
// import that manages it, not only the API's conflict.
func TestAccTunnel_ExistingNameAsksForImport(t *testing.T) {
	edge := newTestEdge(t)
	id, err := edge.client(t).CreateTunnel(context.Background(), edge.Identity().AccountID, "kamuidash-test")
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      tunnelConfig(edge, "origin.kamui.test"),
			ExpectError: regexp.MustCompile(`(?s)Tunnel Already Exists.*terraform\s+import\s+<address>\s+` + id),
		}},
	})
}

// TestAccTunnel_ImportByName: the import takes the tunnel's name as well as its ID (the name is
// what the configuration and the error of a create that found it hold); a name no tunnel has
// is refused with what was looked for.
func TestAccTunnel_ImportByName(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: tunnelConfig(edge, "origin.kamui.test")},
			{
				ResourceName:      tunnelAddr,
				ImportState:       true,
				ImportStateId:     "kamuidash-test",
				ImportStateVerify: true,
			},
			{
				// An ID copied in capitals.
				ResourceName: tunnelAddr,
				ImportState:  true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return strings.ToUpper(s.RootModule().Resources[tunnelAddr].Primary.ID), nil
				},
				ImportStateVerify: true,
			},
			{
				ResourceName:  tunnelAddr,
				ImportState:   true,
				ImportStateId: "no-such-tunnel",
				ExpectError:   regexp.MustCompile(`(?s)No Such Tunnel.*no\s+tunnel\s+named\s+"no-such-tunnel"`),
			},
		},
	})
}

// TestAccTunnel_ImportLeavesAnotherTunnelsCNAME: an imported tunnel has no record ID, so its
// origin hostname's CNAME is looked up by name. One that routes into another live tunnel (the
// hostname is that tunnel's) is not this tunnel's record: adopting it would show it as drift,
// re-point it on the next apply, taking the other tunnel's traffic, and delete it on destroy.
func TestAccTunnel_ImportLeavesAnotherTunnelsCNAME(t *testing.T) {
	edge := newTestEdge(t)
	ctx, c, account := context.Background(), edge.client(t), edge.Identity().AccountID
	const origin = "origin.kamui.test"
	const service = "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080"
	other, err := c.CreateTunnel(ctx, account, "another-platform")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpsertTunnelCNAME(ctx, edge.Identity().ZoneID, "", origin, other); err != nil {
		t.Fatal(err)
	}
	ours, err := c.CreateTunnel(ctx, account, "kamuidash-test")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetTunnelIngress(ctx, account, ours, origin, service); err != nil {
		t.Fatal(err)
	}
	otherTarget := other + kdcf.TunnelTargetSuffix
	stillTheOthers := func(*terraform.State) error {
		for _, rec := range edge.DNSRecords() {
			if rec.Name == origin && rec.Content == otherTarget {
				return nil
			}
		}
		return fmt.Errorf("the CNAME of %s into the other tunnel is gone: %v", origin, edge.DNSRecords())
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:             tunnelConfig(edge, origin),
				ResourceName:       tunnelAddr,
				ImportState:        true,
				ImportStateId:      ours,
				ImportStatePersist: true,
				Check:              stillTheOthers,
			},
			{
				// The apply that would route the hostname into this tunnel is refused by the
				// record the other tunnel holds; it is not taken over.
				Config:      tunnelConfig(edge, origin),
				ExpectError: regexp.MustCompile(`(?s)Origin DNS Record`),
			},
		},
		CheckDestroy: stillTheOthers,
	})
}
