package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

func kvNamespaceConfig(edge *testEdge, title string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_kv_namespace" "routes" {
  title = %q
}
`, title)
}

func TestAccKVNamespace_Lifecycle(t *testing.T) {
	edge := newTestEdge(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoKVNamespaces,
		Steps: []resource.TestStep{
			{
				Config: kvNamespaceConfig(edge, "kamuidash-test-routes"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_kv_namespace.routes", plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_kv_namespace.routes", tfjsonpath.New("title"), knownvalue.StringExact("kamuidash-test-routes")),
					statecheck.ExpectKnownValue("kamuidash_kv_namespace.routes", tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{32}$`))),
					sameID.AddStateValue("kamuidash_kv_namespace.routes", tfjsonpath.New("id")),
				},
			},
			{
				// Re-applying the same configuration changes nothing.
				Config: kvNamespaceConfig(edge, "kamuidash-test-routes"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// A rename is an in-place update: the namespace and its data stay.
				Config: kvNamespaceConfig(edge, "kamuidash-test-routes-renamed"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_kv_namespace.routes", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_kv_namespace.routes", tfjsonpath.New("title"), knownvalue.StringExact("kamuidash-test-routes-renamed")),
					sameID.AddStateValue("kamuidash_kv_namespace.routes", tfjsonpath.New("id")),
				},
			},
			{
				ResourceName:      "kamuidash_kv_namespace.routes",
				ImportState:       true,
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccKVNamespace_DeletedOutOfBandIsDrift(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoKVNamespaces,
		Steps: []resource.TestStep{
			{
				Config: kvNamespaceConfig(edge, "kamuidash-test-drift"),
				Check: func(s *terraform.State) error {
					// Someone deletes the namespace behind Terraform's back.
					id := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					_, err := edge.client(t).KV.Namespaces.Delete(context.Background(), id, kv.NamespaceDeleteParams{AccountID: cf.F(edge.Identity().AccountID)})
					return err
				},
				ExpectNonEmptyPlan: true,
			},
			{
				// The next plan recreates it instead of failing.
				Config: kvNamespaceConfig(edge, "kamuidash-test-drift"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_kv_namespace.routes", plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

func TestAccKVNamespace_ExistingTitleAsksForImport(t *testing.T) {
	edge := newTestEdge(t)
	ns, err := edge.client(t).KV.Namespaces.New(context.Background(), kv.NamespaceNewParams{
		AccountID: cf.F(edge.Identity().AccountID), Title: cf.F("kamuidash-test-taken"),
	})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      kvNamespaceConfig(edge, "kamuidash-test-taken"),
			ExpectError: regexp.MustCompile(`(?s)KV Namespace Already Exists.*terraform\s+import\s+<address>\s+` + ns.ID),
		}},
	})
}

// TestAccKVNamespace_ImportByTitle: the import takes the namespace's title as well as its ID; a
// title no namespace has is refused with what was looked for.
func TestAccKVNamespace_ImportByTitle(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: kvNamespaceConfig(edge, "kamuidash-test-routes")},
			{
				ResourceName:      "kamuidash_kv_namespace.routes",
				ImportState:       true,
				ImportStateId:     "kamuidash-test-routes",
				ImportStateVerify: true,
			},
			{
				ResourceName:  "kamuidash_kv_namespace.routes",
				ImportState:   true,
				ImportStateId: "no such namespace",
				ExpectError:   regexp.MustCompile(`(?s)No Such KV Namespace.*no\s+KV\s+namespace\s+titled\s+"no\s+such\s+namespace"`),
			},
		},
	})
}

// TestAccKVNamespace_CreatedWithoutAnAnswerIsKept: the API created the namespace but its
// answer never came (a proxy's 502; a POST is never retried). None had the title when the
// create began: the create keeps the one found, where it failed and left a namespace the next
// apply refused as existing.
func TestAccKVNamespace_CreatedWithoutAnAnswerIsKept(t *testing.T) {
	edge := newTestEdgeBehind(t, loseAnswers(http.MethodPost, "/storage/kv/namespaces", nil))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoKVNamespaces,
		Steps: []resource.TestStep{{
			Config: kvNamespaceConfig(edge, "kamuidash-test-lost"),
			Check: func(s *terraform.State) error {
				id, found, err := edge.client(t).FindKVNamespace(context.Background(), edge.Identity().AccountID, "kamuidash-test-lost")
				if err != nil || !found {
					return fmt.Errorf("the namespace created is gone: found %v, %v", found, err)
				}
				if got := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID; got != id {
					return fmt.Errorf("state holds namespace %s, the account's is %s", got, id)
				}
				return nil
			},
		}},
	})
}

func TestAccKVNamespace_TitleValidatedAtPlan(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      kvNamespaceConfig(edge, ""),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)title.*length`),
		}},
	})
}

// client is an API client for arranging and inspecting the edge from a test.
func (e *testEdge) client(t *testing.T) *kdcf.Client {
	t.Helper()
	c, err := kdcf.New(kdcf.Config{APIToken: e.Identity().APIToken, BaseURL: e.URL, UserAgent: "kamuidash-acctest"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e *testEdge) checkNoKVNamespaces(*terraform.State) error {
	if ns := e.KVNamespaces(); len(ns) != 0 {
		return fmt.Errorf("%d KV namespace(s) left after destroy", len(ns))
	}
	return nil
}
