package cloudflare

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/rulesets"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

func TestBypassCacheExpression(t *testing.T) {
	for _, tc := range []struct {
		hosts []string
		want  string
	}{
		{[]string{"origin.kamui.app"}, `(http.host eq "origin.kamui.app")`},
		{[]string{"old.kamui.app", "new.kamui.app"}, `(http.host in {"old.kamui.app" "new.kamui.app"})`},
		{[]string{`we"ird\host`}, `(http.host eq "we\"ird\\host")`},
	} {
		if got := BypassCacheExpression(tc.hosts...); got != tc.want {
			t.Errorf("BypassCacheExpression(%q) = %s, want %s", tc.hosts, got, tc.want)
		}
	}
}

// TestBypassCacheRule_OwnsOneRule runs the Cache Rule calls against the local edge's API:
// the entrypoint is created when the zone has none, later rules are appended, updates and
// deletes touch our rule only, a retried create adopts the rule it left behind, and drift is
// recognised.
func TestBypassCacheRule_OwnsOneRule(t *testing.T) {
	api := newLocalAPI(t)
	srv, id, c := api.srv, api.id, api.c
	ctx := context.Background()
	zone := id.ZoneID

	if _, found, err := c.FindCacheRule(ctx, zone, "", "kamuidash_tunnel_a"); err != nil || found {
		t.Fatalf("FindCacheRule on a zone without Cache Rules = found %v, %v", found, err)
	}
	a := BypassCacheRule{Ref: "kamuidash_tunnel_a", Description: "tunnel a", Hosts: []string{"origin-a.kamui.test"}}
	ruleA, err := c.CreateBypassCacheRule(ctx, zone, a)
	if err != nil {
		t.Fatal(err)
	}
	if !ruleA.Bypasses(a) {
		t.Fatalf("created rule %+v does not bypass for %+v", ruleA, a)
	}
	// Someone else's rule, then a second tunnel's: appended, in order.
	_, err = c.Rulesets.Rules.New(ctx, ruleA.RulesetID, rulesets.RuleNewParams{ZoneID: cf.F(zone),
		Body: rulesets.RuleNewParamsBodySetCacheSettingsRule{SetCacheSettingsRuleParam: rulesets.SetCacheSettingsRuleParam{
			Action:           cf.F(rulesets.SetCacheSettingsRuleActionSetCacheSettings),
			ActionParameters: cf.F(rulesets.SetCacheSettingsRuleActionParametersParam{Cache: cf.F(true)}),
			Expression:       cf.F(`(http.host eq "static.kamui.test")`),
			Ref:              cf.F("someone_else"),
		}}})
	if err != nil {
		t.Fatal(err)
	}
	b := BypassCacheRule{Ref: "kamuidash_tunnel_b", Description: "tunnel b", Hosts: []string{"origin-b.kamui.test"}}
	ruleB, err := c.CreateBypassCacheRule(ctx, zone, b)
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := srv.Entrypoint(cfapi.CachePhase)
	if len(rs.Rules) != 3 || rs.Rules[0].ID != ruleA.ID || rs.Rules[1].Ref != "someone_else" || rs.Rules[2].ID != ruleB.ID || ruleB.RulesetID != rs.ID {
		t.Fatalf("after three creates, rules = %+v", rs.Rules)
	}

	// A retried create finds the rule with its ref instead of adding a second one.
	again, err := c.CreateBypassCacheRule(ctx, zone, b)
	if err != nil || again.ID != ruleB.ID {
		t.Fatalf("retried create = %+v, %v; want rule %s again", again, err, ruleB.ID)
	}

	// Drift: our rule edited outside, then repaired by an update in place.
	_, err = c.Rulesets.Rules.Edit(ctx, rs.ID, ruleA.ID, rulesets.RuleEditParams{ZoneID: cf.F(zone),
		Body: rulesets.RuleEditParamsBodySetCacheSettingsRule{SetCacheSettingsRuleParam: rulesets.SetCacheSettingsRuleParam{
			Action:           cf.F(rulesets.SetCacheSettingsRuleActionSetCacheSettings),
			ActionParameters: cf.F(rulesets.SetCacheSettingsRuleActionParametersParam{Cache: cf.F(true)}),
			Expression:       cf.F(`(http.host eq "origin-a.kamui.test")`),
		}}})
	if err != nil {
		t.Fatal(err)
	}
	got, found, err := c.FindCacheRule(ctx, zone, ruleA.ID, a.Ref)
	if err != nil || !found || got.Bypasses(a) {
		t.Fatalf("a rule switched to cache=true reads as %+v (found %v, %v); want drift", got, found, err)
	}
	moved := a
	moved.Hosts = []string{"origin-a2.kamui.test"}
	repaired, err := c.UpdateBypassCacheRule(ctx, zone, got.RulesetID, got.ID, moved)
	if err != nil || repaired.ID != ruleA.ID || !repaired.Bypasses(moved) || repaired.Bypasses(a) {
		t.Fatalf("repaired rule = %+v, %v", repaired, err)
	}

	// Found by ref when the ID is unknown (an import) or stale.
	for _, ruleID := range []string{"", "0123456789abcdef0123456789abcdef"} {
		got, found, err := c.FindCacheRule(ctx, zone, ruleID, b.Ref)
		if err != nil || !found || got.ID != ruleB.ID {
			t.Errorf("FindCacheRule(%q, ref) = %+v, %v, %v", ruleID, got, found, err)
		}
	}

	// Deleting ours leaves everybody else's.
	if err := c.DeleteCacheRule(ctx, zone, rs.ID, ruleA.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteCacheRule(ctx, zone, rs.ID, ruleA.ID); err != nil {
		t.Errorf("deleting a rule already gone: %v", err)
	}
	rs, _ = srv.Entrypoint(cfapi.CachePhase)
	if len(rs.Rules) != 2 || rs.Rules[0].Ref != "someone_else" || rs.Rules[1].ID != ruleB.ID {
		t.Errorf("after deleting rule a, rules = %+v", rs.Rules)
	}
}

// TestBypassCacheRule_EntrypointCreatedMeanwhile: when the entrypoint appears between our
// look-up and our create (another tunnel in the same apply), the rule is added to it.
func TestBypassCacheRule_EntrypointCreatedMeanwhile(t *testing.T) {
	srv, err := cfapi.New(cfapi.Config{StateDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	id := srv.Identity()
	var hidden atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The first look-up does not see the entrypoint the other writer is creating.
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/entrypoint") && hidden.Swap(false) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"success":false,"errors":[{"code":10007,"message":"not yet"}],"messages":[],"result":null}`)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	c := newTestClient(t, hs.URL, func(cfg *Config) { cfg.APIToken = id.APIToken })
	ctx := context.Background()
	other := BypassCacheRule{Ref: "kamuidash_tunnel_other", Hosts: []string{"other.kamui.test"}}
	hidden.Store(false)
	if _, err := c.CreateBypassCacheRule(ctx, id.ZoneID, other); err != nil {
		t.Fatal(err)
	}
	hidden.Store(true)
	ours := BypassCacheRule{Ref: "kamuidash_tunnel_ours", Hosts: []string{"origin.kamui.test"}}
	rule, err := c.CreateBypassCacheRule(ctx, id.ZoneID, ours)
	if err != nil {
		t.Fatalf("create while the entrypoint appeared meanwhile: %v", err)
	}
	rs, _ := srv.Entrypoint(cfapi.CachePhase)
	if len(rs.Rules) != 2 || rs.Rules[0].Ref != other.Ref || rs.Rules[1].ID != rule.ID || hidden.Load() {
		t.Errorf("rules = %+v (look-up hidden still armed: %v)", rs.Rules, hidden.Load())
	}
}
