package rollout

import (
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
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
