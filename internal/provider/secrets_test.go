package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccSecrets_NeverLogged runs a configuration that handles every secret the provider knows
// (the API token, a tunnel's connector token) with full TRACE logging of the CLI and the
// provider, then greps every log line for them.
func TestAccSecrets_NeverLogged(t *testing.T) {
	edge := newTestEdge(t)
	logDir := t.TempDir()
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(logDir, "%s.log"))
	t.Setenv("TF_ACC_LOG", "TRACE") // the CLI
	t.Setenv("TF_LOG", "TRACE")     // the in-process provider

	// The token comes from the environment, as the docs recommend: the harness logs the
	// configuration text itself, which would otherwise hold it.
	t.Setenv(EnvAPIToken, edge.Identity().APIToken)
	withoutToken := func(config string) string {
		return strings.Replace(config, fmt.Sprintf("api_token       = %q", edge.Identity().APIToken), "", 1)
	}
	var tunnelToken string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: withoutToken(tunnelConfig(edge, "origin.kamui.test")) + `
resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-test-routes"
}
resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = kamuidash_tunnel.edge.origin_hostname
  namespace           = "tenant-shop"
  service             = "web"
  port                = 8080
}`,
				Check: func(s *terraform.State) error {
					tunnelToken = s.RootModule().Resources[tunnelAddr].Primary.Attributes["token"]
					if tunnelToken == "" {
						return fmt.Errorf("no tunnel token in state")
					}
					return nil
				},
			},
		},
	})
	// A refused API call: its error and logs must not carry the token either.
	t.Setenv(EnvAPIToken, "wrong-"+edge.Identity().APIToken[:8])
	wrongToken := withoutToken(kvNamespaceConfig(edge, "kamuidash-test-refused"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: wrongToken, ExpectError: regexp.MustCompile(`API token was\s+refused`)}},
	})

	files, err := filepath.Glob(filepath.Join(logDir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no log files written (%v): the test would prove nothing", err)
	}
	var total int
	var sawRequests bool
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		// The provider's request lines name the account in their paths: proof that the
		// provider's own logs, not only the CLI's, were captured.
		sawRequests = sawRequests || strings.Contains(string(b), "Cloudflare API response") && strings.Contains(string(b), edge.Identity().AccountID)
		for name, secret := range map[string]string{"API token": edge.Identity().APIToken, "tunnel token": tunnelToken} {
			if strings.Contains(string(b), secret) {
				t.Errorf("the %s appears in %s", name, filepath.Base(f))
				for _, line := range strings.Split(string(b), "\n") {
					if strings.Contains(line, secret) {
						t.Logf("leaking line: %.300s", strings.ReplaceAll(line, secret, "<SECRET>"))
					}
				}
			}
		}
	}
	if !sawRequests {
		t.Fatal("no provider request log lines captured: the test would prove nothing")
	}
	if total < 10_000 {
		t.Fatalf("only %d bytes of logs: TRACE logging did not take effect", total)
	}
}
