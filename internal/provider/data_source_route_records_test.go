package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccRouteRecordsDataSource_ListsEveryRecord(t *testing.T) {
	edge := newTestEdge(t)
	config := tenantAppConfig(edge, 8080, "") + `
resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  static              = { prefix = "sites/docs/1/" }
}

data "kamuidash_route_records" "all" {
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  depends_on          = [kamuidash_tenant_app.shop, kamuidash_route_record.docs]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kamuidash_route_records.all", tfjsonpath.New("records"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"app": knownvalue.StringExact("docs"), "owner": knownvalue.StringExact(ownerRouteRecord), "schema_version": knownvalue.Int64Exact(1),
					}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"app": knownvalue.StringExact("shop"), "owner": knownvalue.StringExact(ownerTenantApp), "schema_version": knownvalue.Int64Exact(1),
					}),
				})),
				// The listing's rev is the record's rev: a refresh can compare without reading values.
				statecheck.CompareValuePairs(
					"data.kamuidash_route_records.all", tfjsonpath.New("records").AtSliceIndex(1).AtMapKey("rev"),
					tenantAppAddr, tfjsonpath.New("rev"), compareSame),
			},
		}},
	})
}
