package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
