package cloudflare

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/rulesets"
)

// CacheRulesPhase is the phase of a zone's Cache Rules: its entrypoint ruleset holds them, in
// order, and a later matching rule overrides an earlier one.
const CacheRulesPhase = rulesets.PhaseHTTPRequestCacheSettings

// entrypointName is what a zone's entrypoint ruleset is called when we create it (the
// dashboard uses the same name).
const entrypointName = "default"

// CacheRule is one rule of the zone's Cache Rules, as read back.
type CacheRule struct {
	RulesetID   string
	ID          string
	Ref         string
	Action      string
	Expression  string
	Description string
	Enabled     bool
	// ActionParameters are the rule's settings, verbatim ({"cache": false} for a bypass).
	ActionParameters map[string]json.RawMessage
}

// BypassCacheRule is the rule that keeps hosts out of the zone cache: a set_cache_settings
// rule with {"cache": false} on (http.host eq "<host>") (or, for more than one host, on
// (http.host in {"<a>" "<b>"})). Ref identifies it in the ruleset (so that an import finds
// it); Description says who owns it.
type BypassCacheRule struct {
	Ref         string
	Description string
	Hosts       []string
}

// BypassCacheExpression is the rule expression matching exactly the given hosts, with the
// Rules language's string quoting.
func BypassCacheExpression(hosts ...string) string {
	quote := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	if len(hosts) == 1 {
		return `(http.host eq "` + quote.Replace(hosts[0]) + `")`
	}
	quoted := make([]string, len(hosts))
	for i, h := range hosts {
		quoted[i] = `"` + quote.Replace(h) + `"`
	}
	return `(http.host in {` + strings.Join(quoted, " ") + `})`
}

// Bypasses reports whether rule is exactly want as written (enabled, the bypass setting
// alone, the expression for want.Hosts, want's ref); anything else is drift to repair.
func (r *CacheRule) Bypasses(want BypassCacheRule) bool {
	if r.Action != string(rulesets.SetCacheSettingsRuleActionSetCacheSettings) || !r.Enabled ||
		r.Ref != want.Ref || r.Expression != BypassCacheExpression(want.Hosts...) || len(r.ActionParameters) != 1 {
		return false
	}
	return strings.TrimSpace(string(r.ActionParameters["cache"])) == "false"
}

func (w BypassCacheRule) param() rulesets.SetCacheSettingsRuleParam {
	return rulesets.SetCacheSettingsRuleParam{
		Action: cf.F(rulesets.SetCacheSettingsRuleActionSetCacheSettings),
		ActionParameters: cf.F(rulesets.SetCacheSettingsRuleActionParametersParam{
			Cache: cf.F(false),
		}),
		Description: cf.F(w.Description),
		Enabled:     cf.F(true),
		Expression:  cf.F(BypassCacheExpression(w.Hosts...)),
		Ref:         cf.F(w.Ref),
	}
}

// rulesetJSON is the part of a ruleset answer we read. cloudflare-go answers each call with
// its own Go type (a union per rule action); decoding the raw JSON keeps one shape.
type rulesetJSON struct {
	ID    string `json:"id"`
	Rules []struct {
		ID               string                     `json:"id"`
		Ref              string                     `json:"ref"`
		Action           string                     `json:"action"`
		Expression       string                     `json:"expression"`
		Description      string                     `json:"description"`
		Enabled          bool                       `json:"enabled"`
		ActionParameters map[string]json.RawMessage `json:"action_parameters"`
	} `json:"rules"`
}

// findRule decodes a ruleset answer and returns the rule with that ID or, when there is none
// (or id is ""), the rule with that ref ("" matches nothing).
func findRule(raw, id, ref string) (*CacheRule, bool, error) {
	var rs rulesetJSON
	if err := json.Unmarshal([]byte(raw), &rs); err != nil {
		return nil, false, fmt.Errorf("decoding a ruleset: %w", err)
	}
	for _, match := range []func(id, ref string) bool{
		func(ruleID, _ string) bool { return id != "" && ruleID == id },
		func(_, ruleRef string) bool { return ref != "" && ruleRef == ref },
	} {
		for _, r := range rs.Rules {
			if match(r.ID, r.Ref) {
				return &CacheRule{RulesetID: rs.ID, ID: r.ID, Ref: r.Ref, Action: r.Action, Expression: r.Expression,
					Description: r.Description, Enabled: r.Enabled, ActionParameters: r.ActionParameters}, true, nil
			}
		}
	}
	return nil, false, nil
}

// cacheEntrypoint returns the raw JSON of the zone's Cache Rules entrypoint ruleset; found is
// false when the zone has none yet.
func (c *Client) cacheEntrypoint(ctx context.Context, zoneID string) (raw string, found bool, err error) {
	res, err := c.Rulesets.Phases.Get(ctx, CacheRulesPhase, rulesets.PhaseGetParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return res.JSON.RawJSON(), true, nil
}

// FindCacheRule finds a rule of the zone's Cache Rules by ID or, failing that, by ref (an
// import knows only the ref). found is false when neither the rule nor the entrypoint exists.
func (c *Client) FindCacheRule(ctx context.Context, zoneID, id, ref string) (*CacheRule, bool, error) {
	raw, found, err := c.cacheEntrypoint(ctx, zoneID)
	if err != nil || !found {
		return nil, false, err
	}
	return findRule(raw, id, ref)
}

// CreateBypassCacheRule adds want at the end of the zone's Cache Rules (so no earlier rule
// can turn caching back on for the host), creating the entrypoint ruleset when the zone has
// none. A rule already carrying want's ref (left by an apply that failed before saving state)
// is rewritten instead of duplicated. Other rules are never touched: only the per-rule
// endpoints are used once the entrypoint exists.
func (c *Client) CreateBypassCacheRule(ctx context.Context, zoneID string, want BypassCacheRule) (*CacheRule, error) {
	raw, found, err := c.cacheEntrypoint(ctx, zoneID)
	if err != nil {
		return nil, err
	}
	if !found {
		res, err := c.Rulesets.New(ctx, rulesets.RulesetNewParams{
			ZoneID: cf.F(zoneID),
			Kind:   cf.F(rulesets.KindZone),
			Name:   cf.F(entrypointName),
			Phase:  cf.F(CacheRulesPhase),
			Rules:  cf.F([]rulesets.RulesetNewParamsRuleUnion{want.param()}),
		})
		if err == nil {
			return ruleIn(res.JSON.RawJSON(), "", want.Ref)
		}
		// Another writer (a second tunnel in the same apply) may have created the entrypoint
		// since we looked: then the rule is added to it like to any existing one.
		var again bool
		if raw, again, _ = c.cacheEntrypoint(ctx, zoneID); !again {
			return nil, err
		}
	}
	existing, ok, err := findRule(raw, "", want.Ref)
	if err != nil {
		return nil, err
	}
	if ok {
		return c.UpdateBypassCacheRule(ctx, zoneID, existing.RulesetID, existing.ID, want)
	}
	var rs rulesetJSON
	if err := json.Unmarshal([]byte(raw), &rs); err != nil {
		return nil, fmt.Errorf("decoding a ruleset: %w", err)
	}
	res, err := c.Rulesets.Rules.New(ctx, rs.ID, rulesets.RuleNewParams{
		ZoneID: cf.F(zoneID),
		Body:   rulesets.RuleNewParamsBodySetCacheSettingsRule{SetCacheSettingsRuleParam: want.param()},
	})
	if err != nil {
		return nil, err
	}
	return ruleIn(res.JSON.RawJSON(), "", want.Ref)
}

// UpdateBypassCacheRule rewrites one rule (in place, keeping its ID and position) to want.
func (c *Client) UpdateBypassCacheRule(ctx context.Context, zoneID, rulesetID, id string, want BypassCacheRule) (*CacheRule, error) {
	res, err := c.Rulesets.Rules.Edit(ctx, rulesetID, id, rulesets.RuleEditParams{
		ZoneID: cf.F(zoneID),
		Body:   rulesets.RuleEditParamsBodySetCacheSettingsRule{SetCacheSettingsRuleParam: want.param()},
	})
	if err != nil {
		return nil, err
	}
	return ruleIn(res.JSON.RawJSON(), id, "")
}

// DeleteCacheRule deletes one rule of the zone's Cache Rules; a rule (or ruleset) already
// gone is not an error.
func (c *Client) DeleteCacheRule(ctx context.Context, zoneID, rulesetID, id string) error {
	_, err := c.Rulesets.Rules.Delete(ctx, rulesetID, id, rulesets.RuleDeleteParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}

// ruleIn returns the rule a write answered with (the whole ruleset comes back).
func ruleIn(raw, id, ref string) (*CacheRule, error) {
	rule, ok, err := findRule(raw, id, ref)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("the ruleset the API answered with has no rule %s", id+ref)
	}
	return rule, nil
}
