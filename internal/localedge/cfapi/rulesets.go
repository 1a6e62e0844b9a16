package cfapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CachePhase is the phase of the zone's Cache Rules, the only ruleset phase the local edge
// emulates: its zone cache applies them (a set_cache_settings rule's "cache" parameter).
const CachePhase = "http_request_cache_settings"

// ActionSetCacheSettings is the only action of CachePhase rules.
const ActionSetCacheSettings = "set_cache_settings"

func (s *Server) registerRulesetRoutes() {
	const rulesets = APIPrefix + "/zones/{zone_id}/rulesets"
	s.mux.HandleFunc("POST "+rulesets, s.handleJSON(s.createRuleset))
	s.mux.HandleFunc("GET "+rulesets+"/{ruleset_id}", s.handleJSON(s.getRuleset))
	s.mux.HandleFunc("GET "+rulesets+"/phases/{ruleset_phase}/entrypoint", s.handleJSON(s.getEntrypoint))
	s.mux.HandleFunc("POST "+rulesets+"/{ruleset_id}/rules", s.handleJSON(s.createRule))
	s.mux.HandleFunc("PATCH "+rulesets+"/{ruleset_id}/rules/{rule_id}", s.handleJSON(s.editRule))
	s.mux.HandleFunc("DELETE "+rulesets+"/{ruleset_id}/rules/{rule_id}", s.handleJSON(s.deleteRule))
}

// Entrypoint returns a copy of the zone's entrypoint ruleset of phase (kind "zone"), if any.
func (s *Server) Entrypoint(phase string) (Ruleset, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.entrypoint(phase)
	if rs == nil {
		return Ruleset{}, false
	}
	return rs.clone(), true
}

func (s *Server) entrypoint(phase string) *Ruleset {
	for _, rs := range s.zone.Rulesets {
		if rs.Kind == "zone" && rs.Phase == phase {
			return rs
		}
	}
	return nil
}

func (rs *Ruleset) clone() Ruleset {
	c := *rs
	c.Rules = make([]RulesetRule, len(rs.Rules))
	for i, rule := range rs.Rules {
		rule.ActionParameters = slices.Clone(rule.ActionParameters)
		if rule.Extra != nil {
			extra := make(map[string]json.RawMessage, len(rule.Extra))
			for k, v := range rule.Extra {
				extra[k] = slices.Clone(v)
			}
			rule.Extra = extra
		}
		c.Rules[i] = rule
	}
	return c
}

// rulesetView is the API shape of a ruleset; versions are strings on the wire.
func rulesetView(rs *Ruleset) map[string]any {
	rules := make([]map[string]any, len(rs.Rules))
	for i := range rs.Rules {
		rules[i] = ruleView(&rs.Rules[i])
	}
	return map[string]any{
		"id":           rs.ID,
		"name":         rs.Name,
		"description":  rs.Description,
		"kind":         rs.Kind,
		"phase":        rs.Phase,
		"version":      strconv.Itoa(rs.Version),
		"last_updated": rs.LastUpdated,
		"rules":        rules,
	}
}

func ruleView(rule *RulesetRule) map[string]any {
	v := map[string]any{}
	for k, val := range rule.Extra {
		v[k] = val
	}
	for k, val := range map[string]any{
		"id":           rule.ID,
		"ref":          rule.Ref,
		"version":      strconv.Itoa(rule.Version),
		"action":       rule.Action,
		"expression":   rule.Expression,
		"description":  rule.Description,
		"enabled":      rule.Enabled,
		"last_updated": rule.LastUpdated,
	} {
		v[k] = val
	}
	if len(rule.ActionParameters) > 0 {
		v["action_parameters"] = rule.ActionParameters
	}
	return v
}

func (s *Server) ruleset(r *http.Request) (*Ruleset, error) {
	id := r.PathValue("ruleset_id")
	rs, ok := s.zone.Rulesets[id]
	if !ok {
		return nil, errNotFound("could not find ruleset " + id)
	}
	return rs, nil
}

// ruleIndex finds a rule of rs by ID.
func ruleIndex(rs *Ruleset, id string) (int, error) {
	i := slices.IndexFunc(rs.Rules, func(rule RulesetRule) bool { return rule.ID == id })
	if i < 0 {
		return -1, errNotFound("could not find rule " + id + " in ruleset " + rs.ID)
	}
	return i, nil
}

func (s *Server) getEntrypoint(r *http.Request) (any, any, func(), error) {
	phase := r.PathValue("ruleset_phase")
	rs := s.entrypoint(phase)
	if rs == nil {
		return nil, nil, nil, errNotFound("could not find entrypoint ruleset in the " + phase + " phase")
	}
	return rulesetView(rs), nil, nil, nil
}

func (s *Server) getRuleset(r *http.Request) (any, any, func(), error) {
	rs, err := s.ruleset(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return rulesetView(rs), nil, nil, nil
}

// createRuleset creates the zone's entrypoint ruleset of CachePhase, with its rules. Other
// kinds and phases are not emulated and say so; a second entrypoint of the same phase is
// refused, as Cloudflare does.
func (s *Server) createRuleset(r *http.Request) (any, any, func(), error) {
	var body struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Kind        string            `json:"kind"`
		Phase       string            `json:"phase"`
		Rules       []json.RawMessage `json:"rules"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	switch {
	case strings.TrimSpace(body.Name) == "":
		return nil, nil, nil, errBadRequest("name is required")
	case body.Kind != "zone" || body.Phase != CachePhase:
		return nil, nil, nil, &apiError{Status: http.StatusNotImplemented, Code: codeNoRoute,
			Message: "local edge emulates only the zone entrypoint ruleset of phase " + CachePhase + " (kind zone)"}
	}
	if existing := s.entrypoint(body.Phase); existing != nil {
		return nil, nil, nil, &apiError{Status: http.StatusBadRequest, Code: codeConflict,
			Message: "an entrypoint ruleset already exists for phase " + body.Phase + ": " + existing.ID + " (add rules to it instead)"}
	}
	now := s.now().UTC()
	rs := &Ruleset{ID: newID(), Name: body.Name, Description: body.Description, Kind: body.Kind, Phase: body.Phase,
		Version: 1, LastUpdated: now, Rules: []RulesetRule{}}
	for i, raw := range body.Rules {
		rule := RulesetRule{ID: newID(), Version: 1, Enabled: true, LastUpdated: now}
		if _, err := applyRuleBody(raw, &rule, rs.Phase, false); err != nil {
			return nil, nil, nil, errBadRequest(fmt.Sprintf("rules[%d]: %s", i, err.Error()))
		}
		if err := checkRef(rs, &rule); err != nil {
			return nil, nil, nil, err
		}
		rs.Rules = append(rs.Rules, rule)
	}
	s.zone.Rulesets[rs.ID] = rs
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return rulesetView(rs), nil, nil, nil
}

// createRule adds a rule, at the end unless the body's position says otherwise.
func (s *Server) createRule(r *http.Request) (any, any, func(), error) {
	rs, err := s.ruleset(r)
	if err != nil {
		return nil, nil, nil, err
	}
	raw, err := readRaw(r)
	if err != nil {
		return nil, nil, nil, err
	}
	now := s.now().UTC()
	rule := RulesetRule{ID: newID(), Version: 1, Enabled: true, LastUpdated: now}
	pos, err := applyRuleBody(raw, &rule, rs.Phase, true)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkRef(rs, &rule); err != nil {
		return nil, nil, nil, err
	}
	at, err := pos.index(rs, len(rs.Rules))
	if err != nil {
		return nil, nil, nil, err
	}
	rs.Rules = slices.Insert(rs.Rules, at, rule)
	return s.saveRuleset(rs, now)
}

// editRule changes one rule: the fields the body names replace the stored ones (a PATCH),
// and a position moves it.
func (s *Server) editRule(r *http.Request) (any, any, func(), error) {
	rs, err := s.ruleset(r)
	if err != nil {
		return nil, nil, nil, err
	}
	i, err := ruleIndex(rs, r.PathValue("rule_id"))
	if err != nil {
		return nil, nil, nil, err
	}
	raw, err := readRaw(r)
	if err != nil {
		return nil, nil, nil, err
	}
	now := s.now().UTC()
	rule := rs.clone().Rules[i]
	pos, err := applyRuleBody(raw, &rule, rs.Phase, true)
	if err != nil {
		return nil, nil, nil, err
	}
	rule.Version++
	rule.LastUpdated = now
	rest := slices.Delete(slices.Clone(rs.Rules), i, i+1)
	others := &Ruleset{ID: rs.ID, Rules: rest}
	if err := checkRef(others, &rule); err != nil {
		return nil, nil, nil, err
	}
	at := i
	if pos != nil {
		if at, err = pos.index(others, len(rest)); err != nil {
			return nil, nil, nil, err
		}
	}
	rs.Rules = slices.Insert(rest, at, rule)
	return s.saveRuleset(rs, now)
}

func (s *Server) deleteRule(r *http.Request) (any, any, func(), error) {
	rs, err := s.ruleset(r)
	if err != nil {
		return nil, nil, nil, err
	}
	i, err := ruleIndex(rs, r.PathValue("rule_id"))
	if err != nil {
		return nil, nil, nil, err
	}
	rs.Rules = slices.Delete(rs.Rules, i, i+1)
	return s.saveRuleset(rs, s.now().UTC())
}

// saveRuleset records a change of rs as a new version and persists it; a failed save rolls
// the zone state back (see Server.save).
func (s *Server) saveRuleset(rs *Ruleset, now time.Time) (any, any, func(), error) {
	rs.Version++
	rs.LastUpdated = now
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return rulesetView(rs), nil, nil, nil
}

func readRaw(r *http.Request) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := decodeJSON(r, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// checkRef defaults a rule's ref to its ID and keeps refs unique in the ruleset.
func checkRef(rs *Ruleset, rule *RulesetRule) error {
	if rule.Ref == "" {
		rule.Ref = rule.ID
	}
	for _, other := range rs.Rules {
		if other.ID != rule.ID && other.Ref == rule.Ref {
			return errBadRequest("a rule with ref " + strconv.Quote(rule.Ref) + " already exists in ruleset " + rs.ID)
		}
	}
	return nil
}

// ruleFields are the rule fields the emulator interprets (or, for the read-only ones,
// ignores); any other field is kept verbatim in RulesetRule.Extra and echoed back.
var ruleFields = []string{"id", "ref", "version", "last_updated", "action", "action_parameters",
	"expression", "description", "enabled", "position"}

// applyRuleBody merges a rule body into rule and returns its position, if any. Validation
// follows what Cloudflare refuses for the emulated phase: an action other than the phase's,
// an empty expression, action parameters that are not a non-empty object or whose "cache"
// is not a boolean.
func applyRuleBody(data json.RawMessage, rule *RulesetRule, phase string, allowPosition bool) (*rulePosition, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return nil, errBadRequest("a rule must be a JSON object")
	}
	var known struct {
		Ref              *string          `json:"ref"`
		Action           *string          `json:"action"`
		ActionParameters *json.RawMessage `json:"action_parameters"`
		Expression       *string          `json:"expression"`
		Description      *string          `json:"description"`
		Enabled          *bool            `json:"enabled"`
		Position         *rulePosition    `json:"position"`
	}
	if err := json.Unmarshal(data, &known); err != nil {
		return nil, errBadRequest("malformed rule: " + err.Error())
	}
	if known.Position != nil && !allowPosition {
		return nil, errBadRequest("position is only accepted when adding or editing one rule")
	}
	if known.Ref != nil {
		rule.Ref = *known.Ref
	}
	if known.Action != nil {
		rule.Action = *known.Action
	}
	if known.ActionParameters != nil {
		rule.ActionParameters = slices.Clone(*known.ActionParameters)
	}
	if known.Expression != nil {
		rule.Expression = *known.Expression
	}
	if known.Description != nil {
		rule.Description = *known.Description
	}
	if known.Enabled != nil {
		rule.Enabled = *known.Enabled
	}
	for k, v := range raw {
		if slices.Contains(ruleFields, k) {
			continue
		}
		if rule.Extra == nil {
			rule.Extra = map[string]json.RawMessage{}
		}
		rule.Extra[k] = slices.Clone(v)
	}
	if phase == CachePhase && rule.Action != ActionSetCacheSettings {
		return nil, errBadRequest("the " + CachePhase + " phase only accepts the " + ActionSetCacheSettings + " action, not " + strconv.Quote(rule.Action))
	}
	if strings.TrimSpace(rule.Expression) == "" {
		return nil, errBadRequest("a rule needs an expression")
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(rule.ActionParameters, &params); err != nil || len(params) == 0 {
		return nil, errBadRequest("action_parameters must be an object with at least one setting")
	}
	if c, ok := params["cache"]; ok {
		var b bool
		if json.Unmarshal(c, &b) != nil {
			return nil, errBadRequest("action_parameters.cache must be a boolean")
		}
	}
	return known.Position, nil
}

// rulePosition is where a new or edited rule goes: before or after another rule (an empty
// ID meaning the top or the bottom), or at a 1-based index.
type rulePosition struct {
	Before *string `json:"before"`
	After  *string `json:"after"`
	Index  *int    `json:"index"`
}

// index resolves the position among rs.Rules; nil means the end.
func (p *rulePosition) index(rs *Ruleset, n int) (int, error) {
	switch {
	case p == nil:
		return n, nil
	case p.Before != nil && p.After == nil && p.Index == nil:
		if *p.Before == "" {
			return 0, nil
		}
		return ruleIndex(rs, *p.Before)
	case p.After != nil && p.Before == nil && p.Index == nil:
		if *p.After == "" {
			return n, nil
		}
		i, err := ruleIndex(rs, *p.After)
		return i + 1, err
	case p.Index != nil && p.Before == nil && p.After == nil:
		if *p.Index < 1 {
			return 0, errBadRequest("position.index starts at 1")
		}
		return min(*p.Index-1, n), nil
	}
	return 0, errBadRequest("position takes exactly one of before, after and index")
}
