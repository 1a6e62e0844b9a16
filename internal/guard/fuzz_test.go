package guard_test

import (
	"errors"
	"io"
	"strings"
	"testing"

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
			checkReport(t, r, allow)
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
// or forget, a Worker create comes with the bootstrap allowance, and an existing Worker's
// change comes with nothing of another class.
func checkReport(t *testing.T, r *guard.Report, allowBootstrap bool) {
	t.Helper()
	if r.Reason == "" {
		t.Fatal("a verdict without a reason")
	}
	if r.Allowed != (len(r.Violations) == 0) {
		t.Fatalf("allowed=%v with violations %v", r.Allowed, r.Violations)
	}
	ok, existingWorker, otherClass := true, false, false
	for _, c := range r.Changes {
		if len(c.Classes) == 0 {
			t.Fatalf("%s has no class", c.Address)
		}
		for _, k := range c.Classes {
			otherClass = otherClass || k != guard.ClassWorker
		}
		if !c.Has(guard.ClassWorker) {
			continue
		}
		switch strings.Join(actionNames(c), ",") {
		case "update":
			existingWorker = true
		case "create":
			ok = ok && allowBootstrap
		default:
			ok, existingWorker = false, true
		}
	}
	ok = ok && !(existingWorker && otherClass)
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
