package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/kubeaccess"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/kubetest"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/routerpolicy"
)

const routerPolicyAddr = "kamuidash_router_network_policy.this"

// testCluster is a real API server for a test, its kubeconfig on disk and an admin client.
type testCluster struct {
	kubeconfig string
	client     kubernetes.Interface
}

func newTestCluster(t *testing.T, namespaces ...string) *testCluster {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		// As resource.Test does; the acceptance run (scripts/test.sh) runs it on both CLIs.
		t.Skip("acceptance test: set TF_ACC=1 (scripts/test.sh does)")
	}
	cfg := kubetest.Start(t)
	b, err := kubeaccess.Kubeconfig(cfg, "kubetest")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range namespaces {
		if _, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return &testCluster{kubeconfig: path, client: c}
}

// providerBlock is the edge's provider block with a kubernetes block for this cluster.
func (c *testCluster) providerBlock(edge *testEdge) string {
	block := edge.providerBlock()
	return block[:len(block)-2] + fmt.Sprintf("  kubernetes {\n    config_path    = %q\n    config_context = \"kubetest\"\n  }\n}\n", c.kubeconfig)
}

func (c *testCluster) policy(t *testing.T, namespace, name string) *networkingv1.NetworkPolicy {
	t.Helper()
	np, err := c.client.NetworkingV1().NetworkPolicies(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return np
}

const routerPolicyBody = `
resource "kamuidash_router_network_policy" "this" {
  labels = { "app.kubernetes.io/part-of" = "kamuidash" }
  metrics_scraper = {
    pod_labels       = { "app.kubernetes.io/name" = "prometheus" }
    namespace_labels = { "kubernetes.io/metadata.name" = "monitoring" }
  }
}
`

// expectForeignField checks that the plan shows the prior state's field owned by manager.
type expectForeignField struct{ field, manager string }

func (e expectForeignField) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != routerPolicyAddr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		fields, _ := before["foreign_fields"].(map[string]any)
		if fields[e.field] != e.manager {
			resp.Error = fmt.Errorf("the plan's prior foreign_fields are %v, want %s owned by %s (prior state %v)", fields, e.field, e.manager, before)
		}
		return
	}
	resp.Error = fmt.Errorf("no change for %s in the plan", routerPolicyAddr)
}

func TestAccRouterNetworkPolicy_Lifecycle(t *testing.T) {
	edge := newTestEdge(t)
	cluster := newTestCluster(t, defaultRouterNamespace, "monitoring")
	config := cluster.providerBlock(edge) + routerPolicyBody
	want := routerpolicy.Policy{
		Namespace: defaultRouterNamespace, Name: defaultRouterPolicyName,
		Labels:          map[string]string{"app.kubernetes.io/part-of": "kamuidash"},
		RouterPodLabels: defaultRouterPodLabels,
		Connector:       routerpolicy.Peer{PodLabels: defaultConnectorPodLabels, NamespaceLabels: map[string]string{namespaceNameLabel: defaultRouterNamespace}, Port: 8080},
		Metrics: &routerpolicy.Peer{PodLabels: map[string]string{"app.kubernetes.io/name": "prometheus"},
			NamespaceLabels: map[string]string{namespaceNameLabel: "monitoring"}, Port: 9090},
	}
	wantSpec := routerpolicy.SpecJSON(want.Spec())
	onServer := func(*terraform.State) error {
		got := routerpolicy.SpecJSON(cluster.policy(t, defaultRouterNamespace, defaultRouterPolicyName).Spec)
		if got != wantSpec {
			return fmt.Errorf("the policy on the API server is\n%s\nwant\n%s", got, wantSpec)
		}
		return nil
	}
	api := cluster.client.NetworkingV1().NetworkPolicies(defaultRouterNamespace)
	ctx := context.Background()

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			_, err := api.Get(ctx, defaultRouterPolicyName, metav1.GetOptions{})
			if err == nil {
				return fmt.Errorf("the NetworkPolicy is still on the API server after destroy")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						// The spec is known at plan time.
						plancheck.ExpectKnownValue(routerPolicyAddr, tfjsonpath.New("spec_json"), knownvalue.StringExact(wantSpec)),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(routerPolicyAddr, tfjsonpath.New("id"), knownvalue.StringExact(defaultRouterNamespace+"/"+defaultRouterPolicyName)),
					statecheck.ExpectKnownValue(routerPolicyAddr, tfjsonpath.New("widening_policies"), knownvalue.ListExact(nil)),
					statecheck.ExpectKnownValue(routerPolicyAddr, tfjsonpath.New("foreign_fields"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
				Check: onServer,
			},
			{
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: false,
			},
			{
				// kubectl edit: the plan names the field and the manager, the apply repairs it.
				PreConfig: func() {
					np := cluster.policy(t, defaultRouterNamespace, defaultRouterPolicyName)
					np.Spec.Ingress[0].Ports[0].Port.IntVal = 8443
					if _, err := api.Update(ctx, np, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(routerPolicyAddr, plancheck.ResourceActionUpdate),
						expectForeignField{".spec.ingress", "kubectl-edit"},
						plancheck.ExpectKnownValue(routerPolicyAddr, tfjsonpath.New("router_port"), knownvalue.Int64Exact(8080)),
					},
				},
				Check: onServer,
			},
			{
				// Deleted behind Terraform's back: created again.
				PreConfig: func() {
					if err := api.Delete(ctx, defaultRouterPolicyName, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(routerPolicyAddr, plancheck.ResourceActionCreate)},
				},
				Check: onServer,
			},
			{
				// A second policy that selects the router pods and admits everyone is reported.
				PreConfig: func() {
					allowAll := &networkingv1.NetworkPolicy{
						ObjectMeta: metav1.ObjectMeta{Name: "allow-all", Namespace: defaultRouterNamespace},
						Spec: networkingv1.NetworkPolicySpec{
							PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
							Ingress:     []networkingv1.NetworkPolicyIngressRule{{}},
						},
					}
					if _, err := api.Create(ctx, allowAll, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(routerPolicyAddr, tfjsonpath.New("widening_policies"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("allow-all")})),
				},
			},
			{
				ResourceName:      routerPolicyAddr,
				ImportState:       true,
				ImportStateId:     defaultRouterNamespace + "/" + defaultRouterPolicyName,
				ImportStateVerify: true,
			},
		},
	})
}

// Without any cluster settings, only the resource that needs a cluster fails, at plan time,
// naming what to set; a configuration without it plans as before.
func TestAccRouterNetworkPolicy_NoCluster(t *testing.T) {
	edge := newTestEdge(t)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      edge.providerBlock() + routerPolicyBody,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Kubernetes Cluster Not Configured.*kubernetes block`),
			},
			{
				// Labels Kubernetes would refuse fail the plan with the rule, cluster or not.
				Config: edge.providerBlock() + `resource "kamuidash_router_network_policy" "this" {
  router_pod_labels = { "bad key!" = "router" }
}`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Invalid Kubernetes Label`),
			},
			{
				Config: edge.providerBlock() + `resource "kamuidash_router_network_policy" "this" {
  metrics_scraper = {
    pod_labels       = { app = "prometheus" }
    namespace_labels = { "kubernetes.io/metadata.name" = "monitoring" }
    port             = 8080
  }
}`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Metrics Port Is the Router Port`),
			},
			{
				Config:             edge.providerBlock() + `resource "kamuidash_kv_namespace" "routes" { title = "routes" }`,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// A policy the provider applied, labelled since by another tool (kubectl label, a GitOps
// controller's tracking label), imports with an empty plan: the other tool's label is not one
// this resource manages, and a plan that shows it removed would be false, since the apply
// leaves it alone.
func TestAccRouterNetworkPolicy_ImportKeepsForeignLabelsOut(t *testing.T) {
	edge := newTestEdge(t)
	cluster := newTestCluster(t, defaultRouterNamespace, "monitoring")
	ctx := context.Background()
	p := routerpolicy.Policy{
		Namespace: defaultRouterNamespace, Name: defaultRouterPolicyName,
		Labels:          map[string]string{"app.kubernetes.io/part-of": "kamuidash"},
		RouterPodLabels: defaultRouterPodLabels,
		Connector:       routerpolicy.Peer{PodLabels: defaultConnectorPodLabels, NamespaceLabels: map[string]string{namespaceNameLabel: defaultRouterNamespace}, Port: 8080},
		Metrics: &routerpolicy.Peer{PodLabels: map[string]string{"app.kubernetes.io/name": "prometheus"},
			NamespaceLabels: map[string]string{namespaceNameLabel: "monitoring"}, Port: 9090},
	}
	if _, _, err := routerpolicy.Apply(ctx, cluster.client, p); err != nil {
		t.Fatal(err)
	}
	np := cluster.policy(t, defaultRouterNamespace, defaultRouterPolicyName)
	np.Labels["team"] = "platform"
	if _, err := cluster.client.NetworkingV1().NetworkPolicies(defaultRouterNamespace).Update(ctx, np, metav1.UpdateOptions{FieldManager: "kubectl-label"}); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cluster.providerBlock(edge) + routerPolicyBody + `
import {
  to = kamuidash_router_network_policy.this
  id = "` + defaultRouterNamespace + "/" + defaultRouterPolicyName + `"
}`,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(routerPolicyAddr, plancheck.ResourceActionNoop)},
			},
		}},
	})
}
