package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// moduleStep is a test step of a configuration (main.tf) that calls modules/<name> of this
// checkout, whose source it gets as %[1]q. The provider is served in-process under the
// namespace the modules require; the step has its own factories and a configuration directory
// (not a string), which is what makes the harness install the module.
func moduleStep(t *testing.T, name, mainTF string) resource.TestStep {
	t.Helper()
	module, err := filepath.Abs(filepath.Join("..", "..", "modules", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(resource.EnvTfAccProviderNamespace, "kamuidash")
	dir := t.TempDir()
	main := fmt.Sprintf(`
terraform {
  required_providers {
    kamuidash = { source = "kamuidash/kamuidash" }
  }
}
`+mainTF, module)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return resource.TestStep{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		ConfigDirectory:          config.StaticDirectory(dir),
	}
}

// TestAccModuleEdge_FreshnessBudgetSpelling: a freshness budget the module's validation cannot
// read (not hours, minutes and seconds) is refused with the rule's own message, naming the
// variable, not with a failed function call inside the validation.
func TestAccModuleEdge_FreshnessBudgetSpelling(t *testing.T) {
	for _, budget := range []string{"2 minutes", "1.5m", "90000ms"} {
		t.Run(budget, func(t *testing.T) {
			step := moduleStep(t, "edge", fmt.Sprintf(`
module "edge" {
  source           = %%[1]q
  environment      = "dev"
  freshness_budget = %q
  # Obviously fake test values.
  signing_secret = "0123456789abcdef0123456789abcdef-test"
  cache_marker   = "marker-0123456789-test"
}
`, budget))
			step.ExpectError = regexp.MustCompile(`The freshness budget must be a duration of hours, minutes and whole`)
			resource.Test(t, resource.TestCase{Steps: []resource.TestStep{step}})
		})
	}
}

// TestAccModules_NullInputMeansDefault: a module input with a default, passed null (as a
// wrapping module does to mean "not set"), takes its default instead of failing the plan with
// an error about a null function argument or a null count.
func TestAccModules_NullInputMeansDefault(t *testing.T) {
	clearProviderEnv(t)
	edge := newTestEdge(t)
	for name, call := range map[string]struct {
		module, body string
		// expectError, when set, is the error the plan must stop at: a later one than the
		// null input's, which shows the default was taken.
		expectError *regexp.Regexp
	}{
		"edge": {"edge", `
  environment     = "test"
  log_sample_rate = null
  # Obviously fake test values.
  signing_secret = "0123456789abcdef0123456789abcdef-test"
  cache_marker   = "marker-0123456789-test"
`, regexp.MustCompile(`The provider has no platform domain`)},
		"tenant": {"tenant", `
  name                = "shop"
  kind                = "dynamic"
  platform_domain     = "kamui.test"
  routes_namespace_id = "0123456789abcdef0123456789abcdef"
  dynamic = {
    origin    = "origin.kamui.test"
    namespace = "tenant-shop"
    service   = "web"
    port      = 8080
  }
  status     = null
  smoke_path = null
`, nil},
		"cluster-ingress": {"cluster-ingress", `
  tunnel_name     = "kamuidash-test"
  origin_hostname = "origin.kamui.test"
  router = {
    image = "registry.example.internal/kamuidash/router@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
  }
  manage_network_policy = false
  connector_pod_labels  = null
`, nil},
		"cluster-ingress network policy": {"cluster-ingress", `
  tunnel_name     = "kamuidash-test"
  origin_hostname = "origin.kamui.test"
  router = {
    image = "registry.example.internal/kamuidash/router@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
  }
  manage_network_policy = null
`,
			// The default (true): Terraform manages the policy, so the plan needs a cluster,
			// and this provider has none.
			regexp.MustCompile(`Kubernetes Cluster Not Configured`),
		},
	} {
		t.Run(name, func(t *testing.T) {
			provider := edge.providerBlock()
			if call.module == "edge" {
				// Without a platform domain the plan stops at the Worker's precondition,
				// after every variable's validation and before the Worker is built.
				provider = strings.Replace(provider, `platform_domain = "kamui.test"`, "", 1)
			}
			step := moduleStep(t, call.module, provider+`
module "m" {
  source = %[1]q
`+call.body+`}
`)
			step.PlanOnly, step.ExpectNonEmptyPlan, step.ExpectError = true, true, call.expectError
			resource.Test(t, resource.TestCase{Steps: []resource.TestStep{step}})
		})
	}
}

// TestAccModuleClusterIngress_MetricsScraperNamespace: the metrics scraper's namespace must
// be a namespace name, as connector_namespace must; any other value is a valid label value
// the NetworkPolicy would accept and never match, silently shutting the scraper out.
func TestAccModuleClusterIngress_MetricsScraperNamespace(t *testing.T) {
	for _, namespace := range []string{"", "Monitoring", "monitoring.system"} {
		t.Run(namespace, func(t *testing.T) {
			step := moduleStep(t, "cluster-ingress", fmt.Sprintf(`
module "m" {
  source          = %%[1]q
  tunnel_name     = "kamuidash-test"
  origin_hostname = "origin.kamui.test"
  router = {
    image = "registry.example.internal/kamuidash/router@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
  }
  metrics_scraper = {
    pod_labels = { "app.kubernetes.io/name" = "prometheus" }
    namespace  = %q
  }
}
`, namespace))
			step.ExpectError = regexp.MustCompile(`metrics_scraper.namespace must be a DNS label`)
			resource.Test(t, resource.TestCase{Steps: []resource.TestStep{step}})
		})
	}
}

// TestAccModuleTenant_StaticPagesAreFilesOfTheSite: a static app's not_found page, and with spa
// its index, must be files of source_dir, or the plan stops before anything is uploaded; a site
// that has them plans.
func TestAccModuleTenant_StaticPagesAreFilesOfTheSite(t *testing.T) {
	clearProviderEnv(t)
	edge := newTestEdge(t)
	site := t.TempDir()
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte("<h1>docs</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		settings    string
		expectError *regexp.Regexp
	}{
		"a missing not_found page": {`not_found = "404.html"`,
			regexp.MustCompile(`(?s)static\.not_found is "404\.html", which is not a file of`)},
		"a missing index for an spa": {`spa = true
    index = "app.html"`, regexp.MustCompile(`(?s)static\.spa answers every path without a file.*"app\.html"`)},
		"both present": {`not_found = "index.html"
    spa = true`, nil},
	} {
		t.Run(name, func(t *testing.T) {
			step := moduleStep(t, "tenant", edge.providerBlock()+fmt.Sprintf(`
module "m" {
  source              = %%[1]q
  name                = "docs"
  kind                = "static"
  platform_domain     = "kamui.test"
  routes_namespace_id = "0123456789abcdef0123456789abcdef"
  static = {
    bucket     = "kamuidash-test-static"
    source_dir = %q
    %s
  }
}
`, site, tc.settings))
			step.PlanOnly, step.ExpectNonEmptyPlan, step.ExpectError = true, true, tc.expectError
			resource.Test(t, resource.TestCase{Steps: []resource.TestStep{step}})
		})
	}
}
