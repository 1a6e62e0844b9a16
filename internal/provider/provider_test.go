package provider

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// testAccProtoV6ProviderFactories serves the provider in-process to the real Terraform or
// OpenTofu CLI that terraform-plugin-testing drives (TF_ACC_TERRAFORM_PATH).
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kamuidash": providerserver.NewProtocol6WithError(New("test", testSources)()),
}

// testSources is this checkout, standing in for the sources main.go embeds.
var testSources = os.DirFS("../..")

// Fixed, obviously fake identifiers for tests. The token is a marker: it must never show up in
// any output.
const (
	testAccountID = "0123456789abcdef0123456789abcdef"
	testZoneID    = "fedcba9876543210fedcba9876543210"
	testToken     = "kd-test-token-must-never-be-printed"
)

// clearProviderEnv makes a test independent of the caller's environment: every variable a
// provider setting falls back to (a local edge's env file exports most of them).
func clearProviderEnv(t *testing.T) {
	t.Helper()
	for _, env := range providerEnvironment() {
		t.Setenv(env, "") // restores the caller's value afterwards
		if err := os.Unsetenv(env); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEverySettingHasItsEnvironmentVariable keeps the schema, the model and the fallback
// table in step: a setting missing from providerSettings would be read from nowhere and left
// set in the tests' environment.
func TestEverySettingHasItsEnvironmentVariable(t *testing.T) {
	var schemaResp provider.SchemaResponse
	New("test", testSources)().Schema(context.Background(), provider.SchemaRequest{}, &schemaResp)
	values := providerModel{}.values()
	listed := map[string]bool{}
	for _, s := range providerSettings {
		listed[s.attr] = true
		if _, ok := schemaResp.Schema.Attributes[s.attr]; !ok {
			t.Errorf("providerSettings lists %s, which the schema lacks", s.attr)
		}
		if _, ok := values[s.attr]; !ok {
			t.Errorf("providerModel.values lacks %s", s.attr)
		}
		if s.env == "" {
			t.Errorf("%s has no environment variable", s.attr)
		}
	}
	for name := range schemaResp.Schema.Attributes {
		if !listed[name] && name != "verify_propagation" { // a bool, resolved on its own (EnvVerifyPropagation)
			t.Errorf("schema attribute %s is missing from providerSettings", name)
		}
	}
	for _, env := range providerEnvironment() {
		t.Setenv(env, "left-over-"+env)
	}
	clearProviderEnv(t)
	for _, env := range providerEnvironment() {
		if v, ok := os.LookupEnv(env); ok {
			t.Errorf("%s is still set (%q) after clearProviderEnv", env, v)
		}
	}
}

// configure runs the provider's Configure with the given provider-block values (nil = null).
// resourceData is what Configure handed the resources.
func resourceData(t *testing.T, resp *provider.ConfigureResponse) *providerData {
	t.Helper()
	data, ok := resp.ResourceData.(*providerData)
	if !ok {
		t.Fatalf("ResourceData is a %T, want *providerData", resp.ResourceData)
	}
	return data
}

func configure(t *testing.T, values map[string]*string) *provider.ConfigureResponse {
	t.Helper()
	p := New("test", testSources)()
	var schemaResp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &schemaResp)
	attrs := map[string]tftypes.Value{}
	types := map[string]tftypes.Type{}
	for name, attr := range schemaResp.Schema.Attributes {
		typ := attr.GetType().TerraformType(context.Background())
		types[name] = typ
		attrs[name] = tftypes.NewValue(typ, nil)
		if v, ok := values[name]; ok && v != nil {
			switch {
			case *v == "<unknown>":
				attrs[name] = tftypes.NewValue(typ, tftypes.UnknownValue)
			case typ.Is(tftypes.Bool):
				attrs[name] = tftypes.NewValue(typ, *v == "true")
			default:
				attrs[name] = tftypes.NewValue(typ, *v)
			}
		}
	}
	// Blocks are absent (null), as in a provider block that sets none.
	for name, block := range schemaResp.Schema.Blocks {
		types[name] = block.Type().TerraformType(context.Background())
		attrs[name] = tftypes.NewValue(types[name], nil)
	}
	raw := tftypes.NewValue(tftypes.Object{AttributeTypes: types}, attrs)
	resp := &provider.ConfigureResponse{}
	p.Configure(context.Background(), provider.ConfigureRequest{
		Config: tfsdk.Config{Schema: schemaResp.Schema, Raw: raw},
	}, resp)
	return resp
}

func ptr(s string) *string { return &s }

func TestConfigureReportsEveryMissingSetting(t *testing.T) {
	clearProviderEnv(t)
	resp := configure(t, nil)
	if resp.Diagnostics.ErrorsCount() != 2 {
		t.Fatalf("want one error each for api_token and account_id, got %v", resp.Diagnostics)
	}
	all := diagText(resp)
	for _, want := range []string{"api_token", EnvAPIToken, "account_id", EnvAccountID, "Missing Provider Setting"} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, all)
		}
	}
}

func TestConfigureUnknownToken(t *testing.T) {
	clearProviderEnv(t)
	resp := configure(t, map[string]*string{"api_token": ptr("<unknown>"), "account_id": ptr(testAccountID)})
	all := diagText(resp)
	if !resp.Diagnostics.HasError() || !strings.Contains(all, "Unknown Provider Setting") ||
		!strings.Contains(all, "api_token") || !strings.Contains(all, EnvAPIToken) {
		t.Fatalf("want an unknown-value error naming api_token and %s, got:\n%s", EnvAPIToken, all)
	}
}

func TestConfigureFallsBackToEnvironment(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv(EnvAPIToken, testToken)
	t.Setenv(EnvAccountID, testAccountID)
	t.Setenv(EnvPlatformDomain, "kamui.test")
	t.Setenv(EnvAPIBaseURL, "http://127.0.0.1:8787/client/v4")
	t.Setenv(EnvTenantNamespacePrefix, "tenant-")
	resp := configure(t, map[string]*string{"environment": ptr("dev")})
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected diagnostics: %s", diagText(resp))
	}
	data := resourceData(t, resp)
	if data.AccountID != testAccountID || data.PlatformDomain != "kamui.test" || data.Environment != "dev" ||
		data.APIBaseURL != "http://127.0.0.1:8787/client/v4" || data.TenantNamespacePrefix != "tenant-" || data.Client == nil {
		t.Errorf("resolved data = %+v", data)
	}
}

func TestConfigureBlockWinsOverEnvironment(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv(EnvAPIToken, testToken)
	t.Setenv(EnvAccountID, "ffffffffffffffffffffffffffffffff")
	resp := configure(t, map[string]*string{"account_id": ptr(testAccountID)})
	if resp.Diagnostics.HasError() {
		t.Fatal(diagText(resp))
	}
	if got := resourceData(t, resp).AccountID; got != testAccountID {
		t.Errorf("account_id = %s; the provider block must win over %s", got, EnvAccountID)
	}
}

func TestConfigureValidatesEnvironmentValues(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv(EnvAPIToken, testToken)
	t.Setenv(EnvAccountID, "not-an-id")
	t.Setenv(EnvPlatformDomain, "Kamui.Test")
	t.Setenv(EnvAPIBaseURL, "ftp://somewhere")
	t.Setenv(EnvTenantNamespacePrefix, "Tenant_")
	t.Setenv(EnvPropagationWait, "3h")
	resp := configure(t, nil)
	all := diagText(resp)
	for _, want := range []string{"account_id", EnvAccountID, "platform_domain", "api_base_url", "tenant_namespace_prefix", EnvTenantNamespacePrefix,
		"propagation_wait", EnvPropagationWait, "between 10s and 2h"} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, testToken) {
		t.Fatalf("a diagnostic echoes the token:\n%s", all)
	}
}

func TestDiagnosticsNeverEchoTheToken(t *testing.T) {
	clearProviderEnv(t)
	for _, values := range []map[string]*string{
		{"api_token": ptr(testToken)},
		{"api_token": ptr(testToken), "account_id": ptr("bad")},
		{"api_token": ptr(testToken), "account_id": ptr(testAccountID), "api_base_url": ptr("::" + testToken)},
		{"api_token": ptr(testToken), "account_id": ptr("<unknown>")},
	} {
		resp := configure(t, values)
		if !resp.Diagnostics.HasError() {
			t.Errorf("configuration %v should fail", values)
		}
		if all := diagText(resp); strings.Contains(all, testToken) {
			t.Errorf("a diagnostic echoes the token:\n%s", all)
		}
	}
}

func TestConfigureRefusesCredentialsInTheBaseURL(t *testing.T) {
	clearProviderEnv(t)
	const password = "hunter2-in-a-url"
	for _, fromEnv := range []bool{false, true} {
		values := map[string]*string{"api_token": ptr(testToken), "account_id": ptr(testAccountID)}
		if fromEnv {
			t.Setenv(EnvAPIBaseURL, "https://ops:"+password+"@api.internal.example/client/v4")
		} else {
			values["api_base_url"] = ptr("https://ops:" + password + "@api.internal.example/client/v4")
		}
		resp := configure(t, values)
		all := diagText(resp)
		if !resp.Diagnostics.HasError() || !strings.Contains(all, "api_token") || !strings.Contains(all, "credentials") {
			t.Errorf("from env %v: want an error saying to use api_token, got:\n%s", fromEnv, all)
		}
		if strings.Contains(all, password) || strings.Contains(all, "ops:") {
			t.Errorf("from env %v: a diagnostic echoes the URL's credentials:\n%s", fromEnv, all)
		}
	}
}

func TestConfigureProbeKey(t *testing.T) {
	clearProviderEnv(t)
	base := func() map[string]*string {
		return map[string]*string{"api_token": ptr(testToken), "account_id": ptr(testAccountID)}
	}
	key := route.ProbeKey([]byte("0123456789abcdef0123456789abcdef"))
	t.Setenv(EnvProbeKey, route.EncodeProbeKey(key))
	resp := configure(t, base())
	if resp.Diagnostics.HasError() || !bytes.Equal(resourceData(t, resp).ProbeKey, key) {
		t.Fatalf("probe key from %s: %s", EnvProbeKey, diagText(resp))
	}
	const notAKey = "not-a-probe-key-but-a-secret-anyway"
	values := base()
	values["probe_key"] = ptr(notAKey)
	resp = configure(t, values)
	if all := diagText(resp); !resp.Diagnostics.HasError() || !strings.Contains(all, "probe-key") || strings.Contains(all, notAKey) {
		t.Fatalf("a bad probe key: want an error naming the probe-key command without the value, got:\n%s", all)
	}
}

// TestConfigureVerifyPropagation: the provider-level setting, from the block or the environment
// (the block wins), and a value of the environment that is not a bool is refused.
func TestConfigureVerifyPropagation(t *testing.T) {
	clearProviderEnv(t)
	base := func() map[string]*string {
		return map[string]*string{"api_token": ptr(testToken), "account_id": ptr(testAccountID)}
	}
	verify := func(values map[string]*string) (bool, string) {
		resp := configure(t, values)
		if resp.Diagnostics.HasError() {
			return false, diagText(resp)
		}
		return resourceData(t, resp).VerifyPropagation, ""
	}
	if v, errs := verify(base()); v || errs != "" {
		t.Errorf("default: %v %s; want off", v, errs)
	}
	on := base()
	on["verify_propagation"] = ptr("true")
	if v, errs := verify(on); !v || errs != "" {
		t.Errorf("block true: %v %s", v, errs)
	}
	t.Setenv(EnvVerifyPropagation, "true")
	if v, errs := verify(base()); !v || errs != "" {
		t.Errorf("%s=true: %v %s", EnvVerifyPropagation, v, errs)
	}
	off := base()
	off["verify_propagation"] = ptr("false")
	if v, errs := verify(off); v || errs != "" {
		t.Errorf("block false with %s=true: %v %s; the block wins", EnvVerifyPropagation, v, errs)
	}
	t.Setenv(EnvVerifyPropagation, "sometimes")
	if _, errs := verify(base()); !strings.Contains(errs, EnvVerifyPropagation) || !strings.Contains(errs, "true or false") {
		t.Errorf("%s=sometimes: want an error saying true or false, got %q", EnvVerifyPropagation, errs)
	}
	unknown := base()
	unknown["verify_propagation"] = ptr("<unknown>")
	if _, errs := verify(unknown); !strings.Contains(errs, "Unknown Provider Setting") {
		t.Errorf("unknown verify_propagation: %q", errs)
	}
}

// TestConfigurePropagationWait: verify_propagation's wait, from the block or the environment,
// 5 minutes when neither sets it.
func TestConfigurePropagationWait(t *testing.T) {
	clearProviderEnv(t)
	values := func(wait *string) map[string]*string {
		return map[string]*string{"api_token": ptr(testToken), "account_id": ptr(testAccountID), "propagation_wait": wait}
	}
	wait := func(v map[string]*string) time.Duration {
		t.Helper()
		resp := configure(t, v)
		if resp.Diagnostics.HasError() {
			t.Fatal(diagText(resp))
		}
		return resourceData(t, resp).PropagationWait
	}
	if got := wait(values(nil)); got != 5*time.Minute {
		t.Errorf("default: %s, want 5m", got)
	}
	if got := wait(values(ptr("90s"))); got != 90*time.Second {
		t.Errorf("block 90s: %s", got)
	}
	t.Setenv(EnvPropagationWait, "20m")
	if got := wait(values(nil)); got != 20*time.Minute {
		t.Errorf("%s=20m: %s", EnvPropagationWait, got)
	}
	if got := wait(values(ptr("1m"))); got != time.Minute {
		t.Errorf("block 1m with %s=20m: %s; the block wins", EnvPropagationWait, got)
	}
	for _, bad := range []string{"5", "9s", "2h1m", "soon"} {
		t.Setenv(EnvPropagationWait, bad)
		if errs := diagText(configure(t, values(nil))); !strings.Contains(errs, EnvPropagationWait) || !strings.Contains(errs, "between 10s and 2h") {
			t.Errorf("%s=%s: want an error giving the range, got %q", EnvPropagationWait, bad, errs)
		}
	}
}

// TestPropagationWaitDiags: the edge Worker's plan warns when verify_propagation would give up
// before the Worker's freshness budget has passed, and only then.
func TestPropagationWaitDiags(t *testing.T) {
	budget := func(s string) timetypes.GoDuration { return timetypes.NewGoDurationValueFromStringMust(s) }
	for _, tc := range []struct {
		name   string
		verify bool
		wait   time.Duration // 0: not set
		budget timetypes.GoDuration
		warn   bool
	}{
		{"verification off", false, 0, budget("20m"), false},
		{"the default wait covers the default budget", true, 0, budget("2m"), false},
		{"a budget longer than the default wait", true, 0, budget("20m"), true},
		{"a wait as long as the budget", true, 20 * time.Minute, budget("20m"), false},
		{"a wait shorter than the budget", true, 30 * time.Second, budget("45s"), true},
		{"an unknown budget", true, 0, timetypes.NewGoDurationUnknown(), false},
	} {
		data := &providerData{VerifyPropagation: tc.verify, PropagationWait: tc.wait}
		diags := data.propagationWaitDiags(tc.budget)
		if got := diags.WarningsCount() == 1 && !diags.HasError(); got != tc.warn || (!tc.warn && len(diags) != 0) {
			t.Errorf("%s: %v, want a warning: %v", tc.name, diags, tc.warn)
		}
		if tc.warn && !strings.Contains(diags[0].Detail(), EnvPropagationWait) {
			t.Errorf("%s: the warning does not say how to fix it: %s", tc.name, diags[0].Detail())
		}
	}
}

func diagText(resp *provider.ConfigureResponse) string {
	var b strings.Builder
	for _, d := range resp.Diagnostics {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}
