package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The data source makes no API call, so these tests prove the provider block, its environment
// fallbacks and the acceptance harness end to end on the real CLI without any server.

func TestAccPlatformDataSource_ProviderBlock(t *testing.T) {
	clearProviderEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "kamuidash" {
  api_token       = "` + testToken + `"
  account_id      = "` + testAccountID + `"
  zone_id         = "` + testZoneID + `"
  api_base_url    = "http://127.0.0.1:8787/client/v4/"
  platform_domain = "kamui.test"
  environment     = "dev"
}

data "kamuidash_platform" "this" {}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				expectPlatform("account_id", knownvalue.StringExact(testAccountID)),
				expectPlatform("zone_id", knownvalue.StringExact(testZoneID)),
				expectPlatform("api_base_url", knownvalue.StringExact("http://127.0.0.1:8787/client/v4")),
				expectPlatform("platform_domain", knownvalue.StringExact("kamui.test")),
				expectPlatform("environment", knownvalue.StringExact("dev")),
				expectPlatform("provider_version", knownvalue.StringExact("test")),
				expectPlatform("internal_host", knownvalue.StringExact("kamui-internal.kamui.test")),
				expectPlatform("default_freshness_budget_seconds", knownvalue.Int64Exact(120)),
			},
		}},
	})
}

func TestAccPlatformDataSource_EnvironmentFallback(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv(EnvAPIToken, testToken)
	t.Setenv(EnvAccountID, testAccountID)
	t.Setenv(EnvPlatformDomain, "kamui.test")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `data "kamuidash_platform" "this" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				expectPlatform("account_id", knownvalue.StringExact(testAccountID)),
				expectPlatform("platform_domain", knownvalue.StringExact("kamui.test")),
				expectPlatform("api_base_url", knownvalue.StringExact("https://api.cloudflare.com/client/v4")),
				expectPlatform("zone_id", knownvalue.Null()),
				expectPlatform("environment", knownvalue.Null()),
			},
		}},
	})
}

func TestAccProvider_MissingTokenFailsAtPlan(t *testing.T) {
	clearProviderEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "kamuidash" {
  account_id = "` + testAccountID + `"
}
data "kamuidash_platform" "this" {}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Missing Provider Setting.*api_token.*` + EnvAPIToken),
		}},
	})
}

func TestAccProvider_MissingAccountFailsAtPlan(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv(EnvAPIToken, testToken)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      `data "kamuidash_platform" "this" {}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Missing Provider Setting.*account_id.*` + EnvAccountID),
		}},
	})
}

func TestAccProvider_UnknownTokenFailsAtPlan(t *testing.T) {
	clearProviderEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			// terraform_data's output is unknown until apply, so the provider block is too.
			Config: `
resource "terraform_data" "token" {
  input = "` + testToken + `"
}
provider "kamuidash" {
  api_token  = terraform_data.token.output
  account_id = "` + testAccountID + `"
}
data "kamuidash_platform" "this" {}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Unknown Provider Setting.*api_token.*` + EnvAPIToken),
		}},
	})
}

func TestAccProvider_InvalidAccountIDFailsAtPlan(t *testing.T) {
	clearProviderEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "kamuidash" {
  api_token  = "` + testToken + `"
  account_id = "my-account"
}
data "kamuidash_platform" "this" {}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)account_id.*32-character hexadecimal`),
		}},
	})
}

func expectPlatform(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue("data.kamuidash_platform.this", tfjsonpath.New(attr), v)
}
