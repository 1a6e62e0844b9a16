package cfapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRulesets_CacheRulesEntrypoint drives the emulated Cache Rules with raw requests: what is
// refused (as Cloudflare refuses it), rule positions, PATCH semantics, versions and refs.
func TestRulesets_CacheRulesEntrypoint(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	base := ts.URL + APIPrefix + "/zones/" + id.ZoneID + "/rulesets"
	call := func(method, url, body string) (*http.Response, envelopeForTest) {
		t.Helper()
		return rawRequest(t, method, url, id.APIToken, strings.NewReader(body))
	}
	type rule struct {
		ID, Ref, Expression, Description, Version string
		Enabled                                   bool
		ActionParameters                          map[string]any `json:"action_parameters"`
	}
	var ruleset struct {
		ID, Version, Phase, Kind string
		Rules                    []rule
	}
	decode := func(env envelopeForTest) {
		t.Helper()
		ruleset.Rules = nil
		if err := json.Unmarshal(env.Result, &ruleset); err != nil {
			t.Fatalf("decoding the ruleset: %v: %s", err, env.Result)
		}
	}
	cacheRule := func(expr, extra string) string {
		return `{"action":"set_cache_settings","action_parameters":{"cache":false},"expression":` + jsonString(expr) + extra + `}`
	}

	if resp, _ := call("GET", base+"/phases/"+CachePhase+"/entrypoint", ""); resp.StatusCode != 404 {
		t.Errorf("entrypoint of a fresh zone: HTTP %d, want 404", resp.StatusCode)
	}
	for _, tc := range []struct{ body, why string }{
		{`{"name":"default","kind":"zone","phase":"http_request_firewall_custom","rules":[]}`, "a phase the local edge does not emulate"},
		{`{"name":"default","kind":"custom","phase":"` + CachePhase + `","rules":[]}`, "a custom ruleset"},
	} {
		if resp, env := call("POST", base, tc.body); resp.StatusCode != http.StatusNotImplemented || env.Success {
			t.Errorf("%s: HTTP %d, want 501", tc.why, resp.StatusCode)
		}
	}
	for _, tc := range []struct{ rule, why string }{
		{`{"action":"block","expression":"true"}`, "an action of another phase"},
		{`{"action":"set_cache_settings","action_parameters":{"cache":false},"expression":""}`, "an empty expression"},
		{`{"action":"set_cache_settings","expression":"(http.host eq \"a\")"}`, "no action parameters"},
		{`{"action":"set_cache_settings","action_parameters":{"cache":"no"},"expression":"(http.host eq \"a\")"}`, "a cache setting that is not a boolean"},
	} {
		body := `{"name":"default","kind":"zone","phase":"` + CachePhase + `","rules":[` + tc.rule + `]}`
		if resp, _ := call("POST", base, body); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("creating the entrypoint with %s: HTTP %d, want 400", tc.why, resp.StatusCode)
		}
	}

	resp, env := call("POST", base, `{"name":"default","kind":"zone","phase":"`+CachePhase+`","rules":[`+cacheRule(`(http.host eq "a.test")`, `,"ref":"first"`)+`]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("creating the entrypoint: HTTP %d %+v", resp.StatusCode, env.Errors)
	}
	decode(env)
	if ruleset.Version != "1" || len(ruleset.Rules) != 1 || ruleset.Rules[0].Ref != "first" || !ruleset.Rules[0].Enabled || ruleset.Rules[0].Version != "1" {
		t.Fatalf("new entrypoint = %+v", ruleset)
	}
	first := ruleset.Rules[0].ID
	if resp, _ := call("POST", base, `{"name":"again","kind":"zone","phase":"`+CachePhase+`"}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a second entrypoint of the same phase: HTTP %d, want 400", resp.StatusCode)
	}

	rules := base + "/" + ruleset.ID + "/rules"
	_, env = call("POST", rules, cacheRule(`(http.host eq "c.test")`, ""))
	decode(env)
	third := ruleset.Rules[1].ID
	if ruleset.Rules[1].Ref != third || ruleset.Version != "2" {
		t.Errorf("a rule without a ref gets its ID as ref and a new ruleset version: %+v", ruleset)
	}
	_, env = call("POST", rules, cacheRule(`(http.host eq "b.test")`, `,"position":{"after":"`+first+`"}`))
	decode(env)
	second := ruleset.Rules[1].ID
	_, env = call("POST", rules, cacheRule(`(http.host eq "top.test")`, `,"position":{"before":""}`))
	decode(env)
	_, env = call("POST", rules, cacheRule(`(http.host eq "two.test")`, `,"position":{"index":2}`))
	decode(env)
	var order []string
	for _, r := range ruleset.Rules {
		order = append(order, r.Expression)
	}
	if got := strings.Join(order, " "); got != `(http.host eq "top.test") (http.host eq "two.test") (http.host eq "a.test") (http.host eq "b.test") (http.host eq "c.test")` {
		t.Errorf("rule order after positioned inserts = %s", got)
	}
	if resp, _ := call("POST", rules, cacheRule(`(http.host eq "d.test")`, `,"ref":"first"`)); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a duplicate ref: HTTP %d, want 400", resp.StatusCode)
	}
	if resp, _ := call("POST", rules, cacheRule(`(http.host eq "d.test")`, `,"position":{"after":"nope"}`)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a position after an unknown rule: HTTP %d, want 404", resp.StatusCode)
	}

	// PATCH changes the named fields only; the rule keeps its ID, ref and place.
	_, env = call("PATCH", rules+"/"+second, `{"action":"set_cache_settings","expression":"(http.host eq \"b2.test\")"}`)
	decode(env)
	got := ruleset.Rules[3]
	if got.ID != second || got.Expression != `(http.host eq "b2.test")` || got.ActionParameters["cache"] != false || got.Version != "2" || got.Ref != second {
		t.Errorf("patched rule = %+v", got)
	}
	_, env = call("PATCH", rules+"/"+second, `{"enabled":false,"position":{"index":1}}`)
	decode(env)
	if ruleset.Rules[0].ID != second || ruleset.Rules[0].Enabled || ruleset.Rules[0].Version != "3" {
		t.Errorf("a moved and disabled rule = %+v", ruleset.Rules[0])
	}
	if resp, _ := call("PATCH", rules+"/"+third, `{"ref":"first"}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("renaming a ref onto another rule's: HTTP %d, want 400", resp.StatusCode)
	}

	// DELETE removes that rule only.
	_, env = call("DELETE", rules+"/"+third, "")
	decode(env)
	if len(ruleset.Rules) != 4 || ruleset.Rules[3].ID == third {
		t.Errorf("after deleting one rule: %+v", ruleset.Rules)
	}
	if resp, _ := call("DELETE", rules+"/"+third, ""); resp.StatusCode != 404 {
		t.Errorf("deleting a deleted rule: HTTP %d, want 404", resp.StatusCode)
	}
	if resp, _ := call("GET", base+"/0123456789abcdef0123456789abcdef", ""); resp.StatusCode != 404 {
		t.Errorf("an unknown ruleset: HTTP %d, want 404", resp.StatusCode)
	}
	rs, ok := srv.Entrypoint(CachePhase)
	if !ok || len(rs.Rules) != 4 || rs.Rules[0].ID != second || rs.Rules[0].Enabled {
		t.Errorf("Entrypoint() = %+v", rs)
	}
	rs.Rules[0].Expression = "changed by the caller"
	if again, _ := srv.Entrypoint(CachePhase); again.Rules[0].Expression == "changed by the caller" {
		t.Error("Entrypoint() returns the server's own rules, not a copy")
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
