package provider

import (
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

var compareSame = compare.ValuesSame()

func TestAccCustomDomainDataSource_ReadsHostnameAndMapping(t *testing.T) {
	edge := newTestEdge(t, autoValidate(time.Second))
	config := customDomainConfig(edge, "shop", "") + `
data "kamuidash_custom_domain" "www" {
  hostname             = kamuidash_custom_domain.www.hostname
  domains_namespace_id = kamuidash_kv_namespace.domains.id
}
`
	const ds = "data.kamuidash_custom_domain.www"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("app"), knownvalue.StringExact("shop")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("hostname_status"), knownvalue.StringExact("active")),
					statecheck.CompareValuePairs(ds, tfjsonpath.New("custom_hostname_id"), customDomainAddr, tfjsonpath.New("custom_hostname_id"), compareSame),
					statecheck.CompareValuePairs(ds, tfjsonpath.New("ownership_verification"), customDomainAddr, tfjsonpath.New("ownership_verification"), compareSame),
				},
			},
			{
				Config:      edge.providerBlock() + `data "kamuidash_custom_domain" "nope" { hostname = "nope.example" }`,
				ExpectError: regexp.MustCompile(`Custom Hostname Not Found`),
			},
		},
	})
}
