package rollout

import (
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

func TestMovesResources(t *testing.T) {
	noOp := tfjson.Actions{tfjson.ActionNoop}
	for name, tc := range map[string]struct {
		changes []*tfjson.ResourceChange
		want    bool
	}{
		"no changes": {nil, false},
		"a no-op at its address": {[]*tfjson.ResourceChange{
			{Address: "module.edge.kamuidash_edge_worker.this", Change: &tfjson.Change{Actions: noOp}},
		}, false},
		"a no-op whose previous address is its own": {[]*tfjson.ResourceChange{
			{Address: "module.edge.kamuidash_edge_worker.this", PreviousAddress: "module.edge.kamuidash_edge_worker.this", Change: &tfjson.Change{Actions: noOp}},
		}, false},
		"a moved no-op": {[]*tfjson.ResourceChange{
			{Address: "module.edge.kamuidash_kv_namespace.routes", Change: &tfjson.Change{Actions: noOp}},
			{Address: "module.platform.module.edge.kamuidash_edge_worker.this", PreviousAddress: "module.edge.kamuidash_edge_worker.this", Change: &tfjson.Change{Actions: noOp}},
		}, true},
	} {
		got := movesResources(&tfjson.Plan{ResourceChanges: tc.changes})
		if got != tc.want {
			t.Errorf("%s: movesResources = %v, want %v", name, got, tc.want)
		}
	}
}

// TestNeedsApply_Imports: an import block for an object that already matches its configuration
// plans a no-op with importing set. The CLI counts that as a change (exit code 2), and only the
// apply writes the object into the state; skipping it reports the environment done while the
// import never happens, in dev and in prod alike.
func TestNeedsApply_Imports(t *testing.T) {
	importOnly := &tfjson.Plan{ResourceChanges: []*tfjson.ResourceChange{{
		Address: "kamuidash_router_network_policy.router",
		Mode:    tfjson.ManagedResourceMode,
		Type:    "kamuidash_router_network_policy",
		Change: &tfjson.Change{
			Actions:   tfjson.Actions{tfjson.ActionNoop},
			Importing: &tfjson.Importing{ID: "kamuidash-system/kamuidash-router-from-tunnel"},
		},
	}}}
	report, err := guard.Evaluate(importOnly, guard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Allowed {
		t.Fatalf("the guard refused an import-only plan: %s", report.Reason)
	}
	if !needsApply(true, report, importOnly) {
		t.Error("an import-only plan is not applied: the import never reaches the state")
	}
	// A plan whose only change is a data source read at apply time does nothing.
	readOnly := &tfjson.Plan{ResourceChanges: []*tfjson.ResourceChange{{
		Address: "data.kamuidash_zone.main",
		Mode:    tfjson.DataResourceMode,
		Type:    "kamuidash_zone",
		Change:  &tfjson.Change{Actions: tfjson.Actions{tfjson.ActionRead}},
	}}}
	if report, err = guard.Evaluate(readOnly, guard.Options{}); err != nil {
		t.Fatal(err)
	}
	if needsApply(true, report, readOnly) {
		t.Error("a plan that only reads a data source is applied")
	}
}
