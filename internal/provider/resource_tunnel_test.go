package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const tunnelAddr = "kamuidash_tunnel.edge"

func tunnelConfig(edge *testEdge, origin string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_tunnel" "edge" {
  name            = "kamuidash-test"
  origin_hostname = %q
  router_service  = "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080"
}
`, origin)
}

// expectTunnelWiring checks the edge's view: ingress to the router with a catch-all, and a
// proxied CNAME from the origin hostname into the tunnel.
func (e *testEdge) expectTunnelWiring(origin string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[tunnelAddr].Primary.Attributes
		t, ok := e.Tunnel(attrs["id"])
		if !ok || t.Config == nil {
			return fmt.Errorf("tunnel %s has no configuration on the edge", attrs["id"])
		}
		in := t.Config.Ingress
		if len(in) != 2 || in[0].Hostname != origin || in[0].Service != "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080" ||
			in[1].Hostname != "" || in[1].Service != "http_status:404" {
			return fmt.Errorf("ingress = %+v", in)
		}
		for _, rec := range e.DNSRecords() {
			if rec.ID == attrs["dns_record_id"] {
				if rec.Type != "CNAME" || rec.Name != origin || rec.Content != attrs["id"]+".cfargotunnel.com" || !rec.Proxied {
					return fmt.Errorf("origin record = %+v", rec)
				}
				return nil
			}
		}
		return fmt.Errorf("no DNS record %s", attrs["dns_record_id"])
	}
}

func TestAccTunnel_Lifecycle(t *testing.T) {
	edge := newTestEdge(t)
	sameTunnel := statecheck.CompareValue(compare.ValuesSame())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if n := len(edge.DNSRecords()); n != 0 {
				return fmt.Errorf("%d DNS record(s) left after destroy", n)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: tunnelConfig(edge, "origin.kamui.test"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tunnelAddr, tfjsonpath.New("token"), knownvalue.StringRegexp(regexp.MustCompile(`.{20,}`))),
					sameTunnel.AddStateValue(tunnelAddr, tfjsonpath.New("id")),
				},
				Check: edge.expectTunnelWiring("origin.kamui.test"),
			},
			{
				// Moving the origin hostname is an in-place update of ingress and DNS.
				Config: tunnelConfig(edge, "origin2.kamui.test"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tunnelAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameTunnel.AddStateValue(tunnelAddr, tfjsonpath.New("id"))},
				Check:             edge.expectTunnelWiring("origin2.kamui.test"),
			},
			{
				ResourceName:      tunnelAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
		},
	})
}
