package guard_test

import (
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

const (
	cfScript  = "module.platform.cloudflare_workers_script.edge[0]"
	cfRead    = "module.platform.data.cloudflare_workers_script.deployed[0]"
	cfRoute   = "module.platform.cloudflare_workers_route.edge"
	cfKV      = "module.platform.cloudflare_workers_kv.docs"
	cfKVNS    = "module.platform.cloudflare_workers_kv_namespace.routes"
	cfDNS     = "module.platform.cloudflare_dns_record.origin"
	cfTunnel  = "module.platform.cloudflare_zero_trust_tunnel_cloudflared.cluster"
	cfR2      = "module.platform.cloudflare_r2_bucket.static"
	k8sPolicy = "module.platform.module.cluster.kubernetes_network_policy_v1.router"
	tfNote    = "module.platform.terraform_data.note"
)

// platform is the configuration's variables: every content at v1, then the given changes.
func platform(withScript bool, changes map[string]string) config.Variables {
	contents := map[string]string{
		"script": "v1", "route": "v1", "kv": "v1", "kv_namespace": "v1", "dns": "v1",
		"tunnel": "v1", "r2": "v1", "policy": "v1", "note": "v1",
	}
	maps.Copy(contents, changes)
	vars := map[string]config.Variable{}
	for k, v := range contents {
		vars[k] = config.StringVariable(v)
	}
	return config.Variables{"contents": config.MapVariable(vars), "with_script": config.BoolVariable(withScript)}
}

// TestAccGuard_OfficialProviders judges plans the real CLI makes for the official Cloudflare
// provider's and the Kubernetes provider's resource types (served by stand-ins, see
// standin_test.go), in modules one and two levels down: every type lands in its class, a
// Workers KV change is kv although its name starts like a Worker's, a planned data-source read
// is left out, and the Worker rules hold for cloudflare_workers_script as they do for
// kamuidash_edge_worker.
func TestAccGuard_OfficialProviders(t *testing.T) {
	dir := config.TestNameDirectory()
	resource.Test(t, resource.TestCase{
		Steps: withProviders(t, []resource.TestStep{
			{
				ConfigDirectory: dir,
				ConfigVariables: platform(true, nil),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChange{address: cfScript, actions: []string{"create"}, classes: []guard.Class{guard.ClassWorker}},
					expectChange{address: cfRoute, actions: []string{"create"}, classes: []guard.Class{guard.ClassWorker}},
					expectChange{address: cfKV, actions: []string{"create"}, classes: []guard.Class{guard.ClassKV}},
					expectChange{address: cfKVNS, actions: []string{"create"}, classes: []guard.Class{guard.ClassKV}},
					expectChange{address: cfDNS, actions: []string{"create"}, classes: []guard.Class{guard.ClassDNS}},
					expectChange{address: cfTunnel, actions: []string{"create"}, classes: []guard.Class{guard.ClassTunnel}},
					expectChange{address: cfR2, actions: []string{"create"}, classes: []guard.Class{guard.ClassStatic}},
					expectChange{address: k8sPolicy, actions: []string{"create"}, classes: []guard.Class{guard.ClassCluster}},
					expectChange{address: tfNote, actions: []string{"create"}, classes: []guard.Class{guard.ClassOther}},
					expectPlanAction{address: cfRead, actions: []string{"read"}},
					expectChange{address: cfRead},
					expectVerdict{
						rules:     []guard.Rule{guard.RuleWorkerBootstrap},
						reasonHas: []string{cfScript, cfRoute},
					},
					expectVerdict{opts: guard.Options{AllowBootstrap: true}, allowed: true, reasonHas: []string{cfScript}},
				}},
			},
			{
				// The script and its route: both the Worker, updated in place, with a read.
				ConfigDirectory: dir,
				ConfigVariables: platform(true, map[string]string{"script": "v2", "route": "v2"}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: cfScript, actions: []string{"update"}},
					expectPlanAction{address: cfRead, actions: []string{"read"}},
					expectChange{address: cfRead},
					expectVerdict{allowed: true, reasonHas: []string{"only updates the Worker in place", cfScript, cfRoute}},
				}},
			},
			{
				ConfigDirectory: dir,
				ConfigVariables: platform(true, map[string]string{"script": "v3", "route": "v2", "policy": "v2"}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: k8sPolicy, actions: []string{"update"}},
					expectVerdict{rules: []guard.Rule{guard.RuleWorkerAlone}, reasonHas: []string{cfScript, k8sPolicy + " (cluster)"}},
				}},
			},
			{
				// Workers KV is routing data, not the Worker: the more specific prefix wins.
				ConfigDirectory: dir,
				ConfigVariables: platform(true, map[string]string{"script": "v4", "route": "v2", "policy": "v2", "kv": "v2"}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: cfKV, actions: []string{"update"}},
					expectVerdict{rules: []guard.Rule{guard.RuleWorkerAlone}, reasonHas: []string{cfKV + " (kv)"}, reasonLack: []string{k8sPolicy}},
				}},
			},
			{
				// A type the guard does not know is not assumed harmless next to the Worker.
				ConfigDirectory: dir,
				ConfigVariables: platform(true, map[string]string{"script": "v5", "route": "v2", "policy": "v2", "kv": "v2", "note": "v2"}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: tfNote, actions: []string{"update"}},
					expectVerdict{rules: []guard.Rule{guard.RuleWorkerAlone}, reasonHas: []string{tfNote + " (other)"}},
				}},
			},
			{
				// Everything but the Worker, mixed freely.
				ConfigDirectory: dir,
				ConfigVariables: platform(true, map[string]string{
					"script": "v5", "route": "v2", "policy": "v3", "kv": "v3", "note": "v3",
					"kv_namespace": "v2", "dns": "v2", "tunnel": "v2", "r2": "v2",
				}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: cfDNS, actions: []string{"update"}},
					expectChange{address: cfScript},
					expectVerdict{allowed: true, reasonHas: []string{"does not change the Worker", "2 kv, 1 static, 1 dns, 1 tunnel, 1 cluster, 1 other"}},
				}},
			},
			{
				ConfigDirectory: dir,
				ConfigVariables: platform(false, map[string]string{
					"script": "v5", "route": "v2", "policy": "v3", "kv": "v3", "note": "v3",
					"kv_namespace": "v2", "dns": "v2", "tunnel": "v2", "r2": "v2",
				}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: cfScript, actions: []string{"delete"}},
					expectVerdict{rules: []guard.Rule{guard.RuleWorkerInPlace}, reasonHas: []string{"delete " + cfScript}},
				}},
			},
			{
				// Retiring the rest deletes the Worker's route: refused too.
				ConfigDirectory: config.StaticDirectory("testdata/TestAccGuard_OfficialProviders/retired"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: cfRoute, actions: []string{"delete"}},
					expectVerdict{
						opts:      guard.Options{AllowBootstrap: true},
						rules:     []guard.Rule{guard.RuleWorkerInPlace, guard.RuleWorkerAlone},
						reasonHas: []string{"delete " + cfRoute, cfDNS + " (dns)"},
					},
				}},
			},
		}),
	})
}
