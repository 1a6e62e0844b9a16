package provider

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// importConfig is the shape of examples/environments/local's routing data: a dynamic app (the
// tenant app tests' configuration), a fallback origin, the DOMAINS namespace and a custom domain
// of the app (the custom domain tests' resources), and a static site's route record.
func importConfig(edge *testEdge) string {
	return tenantAppConfig(edge, 8080, `timeout = "10s"`) + customDomainResources("shop", "") + `
resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  static = {
    prefix    = "sites/docs/"
    not_found = "404.html"
  }
}
`
}

// TestAccImport_LeavesNoPlan imports each of those resources, with the ids their import.sh
// examples use, through an import block next to the configuration that made them: the plan must
// be the import alone, with no change (terraform-plugin-testing's ImportBlockWithID fails on
// anything else). An attribute the import cannot know (verify_propagation was one, when it was
// a resource attribute) would show as an update here, and a staged rollout would count it.
func TestAccImport_LeavesNoPlan(t *testing.T) {
	edge := newTestEdge(t, autoValidate(200*time.Millisecond))
	config := importConfig(edge)
	id := func(addr string) resource.ImportStateIdFunc {
		return func(s *terraform.State) (string, error) { return s.RootModule().Resources[addr].Primary.ID, nil }
	}
	steps := []resource.TestStep{{Config: config}}
	for _, c := range []struct {
		addr string
		id   resource.ImportStateIdFunc
	}{
		{"kamuidash_fallback_origin.this", id("kamuidash_fallback_origin.this")},
		{"kamuidash_kv_namespace.routes", id("kamuidash_kv_namespace.routes")},
		{"kamuidash_kv_namespace.domains", id("kamuidash_kv_namespace.domains")},
		{"kamuidash_tenant_app.shop", id("kamuidash_tenant_app.shop")},     // <routes namespace id>/shop
		{"kamuidash_route_record.docs", id("kamuidash_route_record.docs")}, // <routes namespace id>/docs
		{"kamuidash_custom_domain.www", func(*terraform.State) (string, error) { return "www.shop.example", nil }},
	} {
		steps = append(steps, resource.TestStep{
			Config:            config,
			ResourceName:      c.addr,
			ImportState:       true,
			ImportStateKind:   resource.ImportBlockWithID,
			ImportStateIdFunc: c.id,
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoKVNamespaces,
		Steps:                    steps,
	})
}
