package guard_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

const (
	workerAddr = "module.env.module.edge.kamuidash_edge_worker.this"
	docsAddr   = "module.env.kamuidash_route_record.docs"
)

// TestAccGuard_EdgeWorker judges plans the real CLI makes for this provider's resources, with
// the Worker two module levels down, through an environment's life: bootstrap, a Worker-only
// update, a Worker update mixed with a route record, a route record alone, a rename (replace)
// and a removal (delete); then the rest is deleted. Every step is applied whatever the verdict: the guard is checked, not
// obeyed, so that the next step starts from a known state.
//
// The last step must leave the state empty: terraform-plugin-testing reads the state through a
// shim that refuses module state, and it does so after the last step to decide on a clean-up
// destroy. Were a step to fail earlier, that clean-up reports "Modules are not supported" after
// the step's own error; the local edge lives in a temporary directory, so nothing is left over.
func TestAccGuard_EdgeWorker(t *testing.T) {
	startTestEdge(t)
	saved := t.TempDir()
	resource.Test(t, resource.TestCase{
		Steps: withProviders(t, []resource.TestStep{
			{
				ConfigDirectory: config.TestStepDirectory(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChange{address: workerAddr, actions: []string{"create"}, classes: []guard.Class{guard.ClassWorker}},
					expectChange{address: docsAddr, actions: []string{"create"}, classes: []guard.Class{guard.ClassKV}},
					expectChange{address: "module.env.kamuidash_kv_namespace.routes", actions: []string{"create"}, classes: []guard.Class{guard.ClassKV}},
					expectVerdict{
						rules:     []guard.Rule{guard.RuleWorkerBootstrap},
						reasonHas: []string{workerAddr, "--allow-bootstrap"},
					},
					expectVerdict{
						opts:      guard.Options{AllowBootstrap: true},
						allowed:   true,
						reasonHas: []string{"creates the Worker " + workerAddr, "it also changes 3 kv"},
					},
					expectCommand{dir: saved, exit: guard.ExitRefused, stdoutHas: []string{"refused", workerAddr}},
					expectCommand{dir: saved, args: []string{"--allow-bootstrap"}, exit: guard.ExitAllowed, stdoutHas: []string{"allowed", workerAddr}},
				}},
			},
			{
				ConfigDirectory: config.TestStepDirectory(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(workerAddr, plancheck.ResourceActionUpdate),
					expectVerdict{
						allowed:   true,
						reasonHas: []string{"only updates the Worker in place (" + workerAddr + ")"},
					},
				}},
			},
			{
				ConfigDirectory: config.TestStepDirectory(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(workerAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(docsAddr, plancheck.ResourceActionUpdate),
					expectVerdict{
						rules:     []guard.Rule{guard.RuleWorkerAlone},
						reasonHas: []string{workerAddr, docsAddr + " (kv)"},
					},
					// A bootstrap allowance does not excuse a mixed update.
					expectVerdict{
						opts:      guard.Options{AllowBootstrap: true},
						rules:     []guard.Rule{guard.RuleWorkerAlone},
						reasonHas: []string{docsAddr},
					},
					// The sub-command on the saved plan, in each format.
					expectCommand{dir: saved, exit: guard.ExitRefused, stdoutHas: []string{
						"refused: the plan changes the Worker", docsAddr, "kv      " + docsAddr, "worker  " + workerAddr,
					}},
					expectCommand{dir: saved, args: []string{"--format", "json"}, exit: guard.ExitRefused, stdoutHas: []string{
						`"verdict": "refused"`, `"rule": "worker-alone"`, `"address": "` + docsAddr + `"`,
					}},
					expectCommand{dir: saved, args: []string{"--format", "markdown"}, exit: guard.ExitRefused, stdoutHas: []string{
						"⛔ refused", "**worker-alone**", "| kv | `" + docsAddr + "` | update | kv |",
					}},
					// A classes file that calls route records part of the Worker makes the same
					// plan a Worker-only update.
					expectCommand{dir: saved, args: []string{"--classes", "testdata/classes/route_record_is_worker.json"}, exit: guard.ExitAllowed, stdoutHas: []string{
						"allowed: the plan only updates the Worker in place", docsAddr,
					}},
				}},
			},
			{
				ConfigDirectory: config.TestStepDirectory(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(docsAddr, plancheck.ResourceActionUpdate),
					expectChange{address: workerAddr}, // unchanged: not listed
					expectVerdict{
						allowed:   true,
						reasonHas: []string{"does not change the Worker", "1 kv"},
					},
				}},
			},
			{
				ConfigDirectory: config.TestStepDirectory(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: workerAddr, actions: []string{"delete", "create"}},
					expectVerdict{
						rules:     []guard.Rule{guard.RuleWorkerInPlace},
						reasonHas: []string{"replace (delete, then create) " + workerAddr},
					},
					// Refused in every plan, bootstrap allowed or not.
					expectVerdict{
						opts:      guard.Options{AllowBootstrap: true},
						rules:     []guard.Rule{guard.RuleWorkerInPlace},
						reasonHas: []string{workerAddr},
					},
				}},
			},
			{
				ConfigDirectory: config.TestStepDirectory(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectPlanAction{address: workerAddr, actions: []string{"delete"}},
					expectVerdict{
						rules:      []guard.Rule{guard.RuleWorkerInPlace},
						reasonHas:  []string{"delete " + workerAddr},
						reasonLack: []string{docsAddr},
					},
					expectVerdict{
						opts:      guard.Options{AllowBootstrap: true},
						rules:     []guard.Rule{guard.RuleWorkerInPlace},
						reasonHas: []string{"delete " + workerAddr},
					},
					expectCommand{dir: saved, exit: guard.ExitRefused, stdoutHas: []string{"refused", "delete " + workerAddr}},
				}},
			},
			{
				ConfigDirectory: config.TestStepDirectory(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChange{address: docsAddr, actions: []string{"delete"}, classes: []guard.Class{guard.ClassKV}},
					expectVerdict{
						allowed:   true,
						reasonHas: []string{"does not change the Worker", "3 kv"},
					},
				}},
			},
		}),
	})
}
