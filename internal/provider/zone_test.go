package provider

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// zoneListing is the operation the zone_name lookup calls, as the local edge counts it.
const zoneListing = "GET /zones"

// zoneConfig is a provider block pointed at edge with its own account and token, plus extra.
func zoneConfig(edge *testEdge, extra map[string]*string) map[string]*string {
	id := edge.Identity()
	values := map[string]*string{"api_token": ptr(id.APIToken), "account_id": ptr(id.AccountID), "api_base_url": ptr(edge.URL)}
	maps.Copy(values, extra)
	return values
}

// configuredZone is the zone ID Configure handed the resources, failing the test on an error.
func configuredZone(t *testing.T, resp *provider.ConfigureResponse) string {
	t.Helper()
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure failed:\n%s", diagText(resp))
	}
	data, ok := resp.ResourceData.(*providerData)
	if !ok {
		t.Fatalf("Configure handed resources %T, want *providerData", resp.ResourceData)
	}
	return data.ZoneID
}

// TestConfigureZoneName_Found: a zone_name in any case, with a trailing dot, resolves to the
// zone's ID with one listing call and nothing else, and every resource gets that ID.
func TestConfigureZoneName_Found(t *testing.T) {
	clearProviderEnv(t)
	edge := newTestEdge(t)
	resp := configure(t, zoneConfig(edge, map[string]*string{"zone_name": ptr("Kamui.TEST.")}))
	if got, want := configuredZone(t, resp), edge.Identity().ZoneID; got != want {
		t.Errorf("zone_name resolved to %q, want the edge's zone %q", got, want)
	}
	if data, ok := resp.DataSourceData.(*providerData); !ok || data.ZoneID != edge.Identity().ZoneID {
		t.Error("data sources got another zone than resources")
	}
	if ops := operationCounts(edge.Calls()); ops[zoneListing] != 1 || len(ops) != 1 {
		t.Errorf("Configure made the calls %v; want one zone listing and nothing else", ops)
	}
}

// TestConfigureZoneName_NotFound: no active zone of the name in the account (another name, or
// the right name in another account) is an error on zone_name that says what to check.
func TestConfigureZoneName_NotFound(t *testing.T) {
	clearProviderEnv(t)
	edge := newTestEdge(t)
	for _, c := range []struct {
		what    string
		values  map[string]*string
		account string
	}{
		{"another name", zoneConfig(edge, map[string]*string{"zone_name": ptr("other.test")}), edge.Identity().AccountID},
		{"another account", zoneConfig(edge, map[string]*string{"zone_name": ptr("kamui.test"), "account_id": ptr(testAccountID)}), testAccountID},
	} {
		resp := configure(t, c.values)
		all := diagText(resp)
		if resp.ResourceData != nil || resp.Diagnostics.ErrorsCount() != 1 || !hasZoneNameError(resp) {
			t.Errorf("%s: want one error on zone_name and no provider data, got:\n%s", c.what, all)
		}
		for _, want := range []string{"Zone Not Found", "no active zone named", c.account, "account_id", "active", "zone_id"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: the diagnostic lacks %q:\n%s", c.what, want, all)
			}
		}
	}
}

// TestConfigureZoneName_Ambiguous: two active zones of the name in the account (the edge has
// one; a second copy with another ID is added to its listing) is an error listing both IDs
// and telling the operator to set zone_id.
func TestConfigureZoneName_Ambiguous(t *testing.T) {
	clearProviderEnv(t)
	const twinID = "abababababababababababababababab"
	edge := newTestEdgeBehind(t, withTwinZone(twinID))
	resp := configure(t, zoneConfig(edge, map[string]*string{"zone_name": ptr("kamui.test")}))
	all := diagText(resp)
	if resp.ResourceData != nil || !hasZoneNameError(resp) {
		t.Fatalf("want an error on zone_name and no provider data, got:\n%s", all)
	}
	for _, want := range []string{"Ambiguous Zone Name", "2 active zones", edge.Identity().ZoneID, twinID, "Set zone_id"} {
		if !strings.Contains(all, want) {
			t.Errorf("the diagnostic lacks %q:\n%s", want, all)
		}
	}
}

// withTwinZone answers the zone listing with the edge's own answer plus, for each zone in it,
// a copy with the ID twinID: an account holding two active zones of one name.
func withTwinZone(twinID string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.URL.Path != cfapi.APIPrefix+"/zones" {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var env struct {
				Success    bool                       `json:"success"`
				Errors     []any                      `json:"errors"`
				Messages   []any                      `json:"messages"`
				Result     []map[string]any           `json:"result"`
				ResultInfo map[string]json.RawMessage `json:"result_info"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != http.StatusOK {
				http.Error(w, "the edge's zone listing failed: "+rec.Body.String(), http.StatusBadGateway)
				return
			}
			for _, z := range env.Result {
				twin := maps.Clone(z)
				twin["id"] = twinID
				env.Result = append(env.Result, twin)
			}
			n, _ := json.Marshal(len(env.Result))
			env.ResultInfo["count"], env.ResultInfo["total_count"] = n, n
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(env)
		})
	}
}

// TestConfigureZoneSetting: zone_id and zone_name are one setting. The block decides when it
// sets either (a block's zone_name beats the environment's zone_id, which a local edge's env
// file exports); both at once is an error wherever they come from; a name that is not a DNS
// name is refused before any API call.
func TestConfigureZoneSetting(t *testing.T) {
	edge := newTestEdge(t)
	zone := edge.Identity().ZoneID
	const otherZone = "ffffffffffffffffffffffffffffffff"

	t.Run("block name beats environment id", func(t *testing.T) {
		clearProviderEnv(t)
		t.Setenv(EnvZoneID, otherZone)
		if got := configuredZone(t, configure(t, zoneConfig(edge, map[string]*string{"zone_name": ptr("kamui.test")}))); got != zone {
			t.Errorf("zone = %q, want the looked-up %q: the block's zone_name must win over %s", got, zone, EnvZoneID)
		}
	})
	t.Run("block id beats environment name", func(t *testing.T) {
		clearProviderEnv(t)
		t.Setenv(EnvZoneName, "nowhere.test")
		edge.ResetCalls()
		if got := configuredZone(t, configure(t, zoneConfig(edge, map[string]*string{"zone_id": ptr(otherZone)}))); got != otherZone {
			t.Errorf("zone = %q, want the block's zone_id %q", got, otherZone)
		}
		if n := operationCounts(edge.Calls())[zoneListing]; n != 0 {
			t.Errorf("with zone_id in the block the provider listed zones %d times", n)
		}
	})
	t.Run("environment name", func(t *testing.T) {
		clearProviderEnv(t)
		t.Setenv(EnvZoneName, "kamui.test")
		if got := configuredZone(t, configure(t, zoneConfig(edge, nil))); got != zone {
			t.Errorf("zone = %q, want %q from %s", got, zone, EnvZoneName)
		}
	})
	t.Run("neither", func(t *testing.T) {
		clearProviderEnv(t)
		if got := configuredZone(t, configure(t, zoneConfig(edge, nil))); got != "" {
			t.Errorf("zone = %q, want none", got)
		}
	})
	for _, c := range []struct {
		what  string
		env   map[string]string
		block map[string]*string
		want  []string
	}{
		{"both in the block", nil, map[string]*string{"zone_id": ptr(zone), "zone_name": ptr("kamui.test")},
			[]string{"Conflicting Zone Settings", "zone_id", "zone_name", "Keep one"}},
		{"both in the environment", map[string]string{EnvZoneID: zone, EnvZoneName: "kamui.test"}, nil,
			[]string{"Conflicting Zone Settings", EnvZoneID, EnvZoneName, "Unset one", "provider block"}},
		{"a URL", nil, map[string]*string{"zone_name": ptr("https://kamui.test")}, []string{"Invalid Provider Setting", "zone_name", "DNS name"}},
		{"a port", nil, map[string]*string{"zone_name": ptr("kamui.test:443")}, []string{"Invalid Provider Setting", "zone_name"}},
		{"a wildcard", map[string]string{EnvZoneName: "*.kamui.test"}, nil, []string{"Invalid Provider Setting", EnvZoneName}},
	} {
		t.Run(c.what, func(t *testing.T) {
			clearProviderEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			edge.ResetCalls()
			resp := configure(t, zoneConfig(edge, c.block))
			all := diagText(resp)
			if resp.ResourceData != nil || !hasZoneNameError(resp) {
				t.Fatalf("want an error on zone_name and no provider data, got:\n%s", all)
			}
			for _, want := range c.want {
				if !strings.Contains(all, want) {
					t.Errorf("the diagnostic lacks %q:\n%s", want, all)
				}
			}
			if n := operationCounts(edge.Calls())[zoneListing]; n != 0 {
				t.Errorf("a refused zone setting still listed zones %d times", n)
			}
		})
	}
}

// TestConfigureZoneName_LookupFailsWithoutTheToken: a refused lookup says what was looked up
// and what to check, and never repeats the token.
func TestConfigureZoneName_LookupFailsWithoutTheToken(t *testing.T) {
	clearProviderEnv(t)
	edge := newTestEdge(t)
	values := zoneConfig(edge, map[string]*string{"zone_name": ptr("kamui.test"), "api_token": ptr(testToken)})
	resp := configure(t, values)
	all := diagText(resp)
	if resp.ResourceData != nil || !hasZoneNameError(resp) {
		t.Fatalf("want an error on zone_name and no provider data, got:\n%s", all)
	}
	for _, want := range []string{"Unable to Look Up Zone", "kamui.test", "token", "403"} {
		if !strings.Contains(all, want) {
			t.Errorf("the diagnostic lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, testToken) {
		t.Fatalf("a diagnostic echoes the token:\n%s", all)
	}
}

// TestMissingZoneDiagNamesBothSettings: what a zone-level resource reports without a zone.
func TestMissingZoneDiagNamesBothSettings(t *testing.T) {
	d := missingZoneDiag(path.Root("zone_id"))
	for _, want := range []string{"zone_id", "zone_name", EnvZoneID, EnvZoneName} {
		if !strings.Contains(d.Detail(), want) {
			t.Errorf("missing-zone diagnostic lacks %q: %s", want, d.Detail())
		}
	}
}

// hasZoneNameError reports whether resp has an error diagnostic on the provider's zone_name.
func hasZoneNameError(resp *provider.ConfigureResponse) bool {
	for _, d := range resp.Diagnostics.Errors() {
		if withPath, ok := d.(diag.DiagnosticWithPath); ok && withPath.Path().Equal(path.Root("zone_name")) {
			return true
		}
	}
	return false
}
