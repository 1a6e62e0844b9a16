package guard

import (
	"fmt"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
)

// Change is one resource change of a plan, as the guard judges it.
type Change struct {
	// Address is the resource instance's absolute address, module path and key included
	// (module.env.module.edge.kamuidash_edge_worker.this["dev"]).
	Address string `json:"address"`
	// Deposed is the key of a deposed object (left over from a create-before-destroy) when the
	// change is to that object rather than to the current one.
	Deposed string `json:"deposed,omitempty"`
	// Type is the resource type.
	Type string `json:"type"`
	// Actions are the CLI's planned actions, in its order (["delete", "create"] for a
	// destroy-then-create replace).
	Actions []tfjson.Action `json:"actions"`
	// Classes are the parts of the edge the change touches, in report order; at least one.
	Classes []Class `json:"classes"`

	// tainted says the prior state marks the object tainted: its create failed partway (or an
	// operator tainted it), and the plan replaces it.
	tainted bool
}

// Has reports whether the change belongs to class c.
func (c Change) Has(class Class) bool {
	for _, k := range c.Classes {
		if k == class {
			return true
		}
	}
	return false
}

// DisplayAddress is Address, marked when the change is to a deposed object.
func (c Change) DisplayAddress() string {
	if c.Deposed != "" {
		return c.Address + " (deposed " + c.Deposed + ")"
	}
	return c.Address
}

// Action names the actions the way a reviewer thinks of them.
func (c Change) Action() string {
	a := tfjson.Actions(c.Actions)
	switch {
	case a.DestroyBeforeCreate():
		return "replace (delete, then create)"
	case a.CreateBeforeDestroy():
		return "replace (create, then delete)"
	}
	names := make([]string, len(c.Actions))
	for i, x := range c.Actions {
		names[i] = string(x)
	}
	return strings.Join(names, ", ")
}

// isUpdate and isCreate are the only Worker actions the rules can allow.
func (c Change) isUpdate() bool { return tfjson.Actions(c.Actions).Update() }
func (c Change) isCreate() bool { return tfjson.Actions(c.Actions).Create() }

// finishesCreate says the change brings a new object into being: a create, or the replace of
// a tainted object, which a create that failed partway left behind.
func (c Change) finishesCreate() bool {
	return c.isCreate() || (c.tainted && tfjson.Actions(c.Actions).Replace())
}

// knownActions are the actions of plan format 1.x. An action the guard does not know could be
// anything, so it makes the input unusable rather than being guessed at.
var knownActions = map[tfjson.Action]bool{
	tfjson.ActionNoop: true, tfjson.ActionCreate: true, tfjson.ActionRead: true,
	tfjson.ActionUpdate: true, tfjson.ActionDelete: true, tfjson.ActionForget: true,
}

// changesOf lists the plan's managed-resource changes that do something: no-ops, reads and
// data sources are left out, since applying them changes nothing at the edge. Resources in
// modules at any depth are in resource_changes with their full address, so they are included.
func changesOf(plan *tfjson.Plan, classify func(resourceType string) []Class) ([]Change, error) {
	tainted := taintedAddresses(plan)
	var out []Change
	for i, rc := range plan.ResourceChanges {
		if rc == nil {
			return nil, &InputError{Problem: fmt.Sprintf("resource_changes[%d] is null", i)}
		}
		if rc.Mode == tfjson.DataResourceMode {
			continue
		}
		if rc.Change == nil || len(rc.Change.Actions) == 0 {
			return nil, &InputError{Problem: fmt.Sprintf("resource_changes[%d] (%q) has no change.actions", i, rc.Address)}
		}
		if rc.Type == "" || rc.Address == "" {
			return nil, &InputError{Problem: fmt.Sprintf("resource_changes[%d] has no type or no address, so it cannot be classified", i)}
		}
		inert := true
		for _, a := range rc.Change.Actions {
			if !knownActions[a] {
				return nil, &InputError{Problem: fmt.Sprintf("resource_changes[%d] (%s) has the action %q, which the guard does not know (it knows no-op, create, read, update, delete, forget); was the plan made by a newer CLI?", i, rc.Address, a)}
			}
			inert = inert && (a == tfjson.ActionNoop || a == tfjson.ActionRead)
		}
		if inert {
			continue
		}
		out = append(out, Change{
			Address: rc.Address,
			Deposed: rc.DeposedKey,
			Type:    rc.Type,
			Actions: append([]tfjson.Action(nil), rc.Change.Actions...),
			Classes: classify(rc.Type),
			tainted: rc.DeposedKey == "" && tainted[rc.Address],
		})
	}
	return out, nil
}

// taintedAddresses lists the current objects the plan's prior state marks tainted.
func taintedAddresses(plan *tfjson.Plan) map[string]bool {
	out := map[string]bool{}
	if plan.PriorState == nil || plan.PriorState.Values == nil {
		return out
	}
	var walk func(m *tfjson.StateModule)
	walk = func(m *tfjson.StateModule) {
		if m == nil {
			return
		}
		for _, r := range m.Resources {
			if r != nil && r.Tainted && r.DeposedKey == "" {
				out[r.Address] = true
			}
		}
		for _, child := range m.ChildModules {
			walk(child)
		}
	}
	walk(plan.PriorState.Values.RootModule)
	return out
}
