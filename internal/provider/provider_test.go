package provider

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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

// clearProviderEnv makes a test independent of the caller's environment.
func clearProviderEnv(t *testing.T) {
	t.Helper()
	for _, env := range []string{EnvAPIToken, EnvAccountID, EnvZoneID, EnvAPIBaseURL, EnvPlatformDomain, EnvEnvironment} {
		t.Setenv(env, "")
		os.Unsetenv(env)
	}
}

// configure runs the provider's Configure with the given provider-block values (nil = null).
func configure(t *testing.T, values map[string]*string) *provider.ConfigureResponse {
	t.Helper()
	p := New("test", testSources)()
	var schemaResp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &schemaResp)
	attrs := map[string]tftypes.Value{}
	types := map[string]tftypes.Type{}
	for name := range schemaResp.Schema.Attributes {
		types[name] = tftypes.String
		attrs[name] = tftypes.NewValue(tftypes.String, nil)
		if v, ok := values[name]; ok && v != nil {
			if *v == "<unknown>" {
				attrs[name] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
			} else {
				attrs[name] = tftypes.NewValue(tftypes.String, *v)
			}
		}
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
	resp := configure(t, map[string]*string{"environment": ptr("dev")})
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected diagnostics: %s", diagText(resp))
	}
	data := resp.ResourceData.(*providerData)
	if data.AccountID != testAccountID || data.PlatformDomain != "kamui.test" || data.Environment != "dev" ||
		data.APIBaseURL != "http://127.0.0.1:8787/client/v4" || data.Client == nil {
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
	if got := resp.ResourceData.(*providerData).AccountID; got != testAccountID {
		t.Errorf("account_id = %s; the provider block must win over %s", got, EnvAccountID)
	}
}

func TestConfigureValidatesEnvironmentValues(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv(EnvAPIToken, testToken)
	t.Setenv(EnvAccountID, "not-an-id")
	t.Setenv(EnvPlatformDomain, "Kamui.Test")
	t.Setenv(EnvAPIBaseURL, "ftp://somewhere")
	resp := configure(t, nil)
	all := diagText(resp)
	for _, want := range []string{"account_id", EnvAccountID, "platform_domain", "api_base_url"} {
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

func diagText(resp *provider.ConfigureResponse) string {
	var b strings.Builder
	for _, d := range resp.Diagnostics {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}
