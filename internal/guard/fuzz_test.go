package guard_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// FuzzGuard feeds arbitrary bytes through the whole path the sub-command takes: parse, judge,
// render. The seed corpus (testdata/fuzz/FuzzGuard) holds plans the real CLIs made in the
// acceptance tests, reduced to what the guard reads, and malformed inputs. Beyond "never
// panics", it checks that every failure is an input error with the how-to hint and that every
// verdict agrees with the rules restated independently here.
func FuzzGuard(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		plan, err := guard.ParsePlan(data)
		if err != nil {
			checkInputError(t, err)
			return
		}
		for _, allow := range []bool{false, true} {
			r, err := guard.Evaluate(plan, guard.Options{AllowBootstrap: allow})
			if err != nil {
				checkInputError(t, err)
				return
			}
			checkReport(t, r, allow, taintedIn(plan))
			for _, f := range []guard.Format{guard.FormatText, guard.FormatJSON, guard.FormatMarkdown} {
				if err := guard.Render(io.Discard, r, f); err != nil {
					t.Fatalf("rendering %s: %v", f, err)
				}
			}
		}
	})
}

func checkInputError(t *testing.T, err error) {
	t.Helper()
	var ie *guard.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%T is not an *InputError: %v", err, err)
	}
	if !strings.Contains(err.Error(), "terraform show -json") {
		t.Fatalf("the error does not say how to make a plan JSON: %v", err)
	}
}

// checkReport restates the rules: allowed exactly when no Worker change is a delete, replace
// or forget, a Worker create comes with the bootstrap allowance and with nothing of another
// class but creates (and replaces of tainted objects), and an existing Worker's change comes
// with nothing of another class.
func checkReport(t *testing.T, r *guard.Report, allowBootstrap bool, tainted map[string]bool) {
	t.Helper()
	if r.Reason == "" {
		t.Fatal("a verdict without a reason")
	}
	if r.Allowed != (len(r.Violations) == 0) {
		t.Fatalf("allowed=%v with violations %v", r.Allowed, r.Violations)
	}
	ok, existingWorker, newWorker, otherClass, otherExisting := true, false, false, false, false
	for _, c := range r.Changes {
		if len(c.Classes) == 0 {
			t.Fatalf("%s has no class", c.Address)
		}
		for _, k := range c.Classes {
			if k != guard.ClassWorker {
				otherClass = true
				switch strings.Join(actionNames(c), ",") {
				case "create":
				case "delete,create", "create,delete":
					otherExisting = otherExisting || c.Deposed != "" || !tainted[c.Address]
				default:
					otherExisting = true
				}
			}
		}
		if !c.Has(guard.ClassWorker) {
			continue
		}
		switch strings.Join(actionNames(c), ",") {
		case "update":
			existingWorker = true
		case "create":
			ok, newWorker = ok && allowBootstrap, true
		default:
			ok, existingWorker = false, true
		}
	}
	ok = ok && !(existingWorker && otherClass) && !(newWorker && otherExisting)
	if r.Allowed != ok {
		t.Fatalf("verdict %s, but the rules say allowed=%v; reason: %s", r.Verdict(), ok, r.Reason)
	}
}

func actionNames(c guard.Change) []string {
	out := make([]string, len(c.Actions))
	for i, a := range c.Actions {
		out[i] = string(a)
	}
	return out
}

// taintedIn lists the current objects the plan's prior state marks tainted.
func taintedIn(plan *tfjson.Plan) map[string]bool {
	out := map[string]bool{}
	if plan.PriorState == nil || plan.PriorState.Values == nil {
		return out
	}
	modules := []*tfjson.StateModule{plan.PriorState.Values.RootModule}
	for len(modules) > 0 {
		m := modules[0]
		modules = modules[1:]
		if m == nil {
			continue
		}
		for _, r := range m.Resources {
			if r != nil && r.Tainted && r.DeposedKey == "" {
				out[r.Address] = true
			}
		}
		modules = append(modules, m.ChildModules...)
	}
	return out
}
