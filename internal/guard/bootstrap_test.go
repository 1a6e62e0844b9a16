package guard_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// A bootstrap allowance lets the Worker's first deployment create the rest of a new
// environment with it; a plan that creates the Worker while it updates, replaces or deletes
// what already exists is no new environment (the Worker fell out of an existing one's state),
// and the data change would ride along with the new code. A replace of a tainted object is the
// exception: an object is tainted when its create failed partway, so retrying a failed bootstrap
// replaces it.
func TestBootstrapOnlyCreatesTheRest(t *testing.T) {
	const worker = `{"address": "module.edge.kamuidash_edge_worker.this", "mode": "managed", "type": "kamuidash_edge_worker", "name": "this", "change": {"actions": ["create"]}}`
	for name, tc := range map[string]struct {
		other   string
		tainted bool
		allowed bool
	}{
		"create":                {`["create"]`, false, true},
		"update":                {`["update"]`, false, false},
		"delete":                {`["delete"]`, false, false},
		"replace":               {`["delete", "create"]`, false, false},
		"replace, create first": {`["create", "delete"]`, false, false},
		"forget":                {`["forget"]`, false, false},
		"no-op":                 {`["no-op"]`, false, true},
		"replace of a tainted":  {`["delete", "create"]`, true, true},
		"tainted, create first": {`["create", "delete"]`, true, true},
		"delete of a tainted":   {`["delete"]`, true, false},
	} {
		t.Run(name, func(t *testing.T) {
			plan, err := guard.ParsePlan([]byte(fmt.Sprintf(`{"format_version": "1.2", "resource_changes": [%s,
				{"address": "cloudflare_dns_record.origin", "mode": "managed", "type": "cloudflare_dns_record", "name": "origin", "change": {"actions": %s}}],
				"prior_state": {"format_version": "1.0", "values": {"root_module": {"resources": [
				{"address": "cloudflare_dns_record.origin", "mode": "managed", "type": "cloudflare_dns_record", "name": "origin", "tainted": %t}]}}}}`,
				worker, tc.other, tc.tainted)))
			if err != nil {
				t.Fatal(err)
			}
			r, err := guard.Evaluate(plan, guard.Options{AllowBootstrap: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Allowed != tc.allowed {
				t.Fatalf("allowed %v, want %v (%s)", r.Allowed, tc.allowed, r.Reason)
			}
			if tc.allowed {
				return
			}
			if len(r.Violations) != 1 || r.Violations[0].Rule != guard.RuleWorkerAlone ||
				!slices.Equal(r.Violations[0].Addresses, []string{"cloudflare_dns_record.origin"}) {
				t.Fatalf("violations %+v, want worker-alone for cloudflare_dns_record.origin", r.Violations)
			}
			if !strings.Contains(r.Reason, "module.edge.kamuidash_edge_worker.this") {
				t.Errorf("reason %q does not name the Worker", r.Reason)
			}
		})
	}
}

// A Worker whose create failed after the upload (its routes could not be set, say) is tainted,
// and every later plan replaces it. The refusal must say so and how to get back to an in-place
// update, rather than advise keeping a name and a configuration that never changed.
func TestTaintedWorkerNamesTheTaint(t *testing.T) {
	const addr = `module.edge.kamuidash_edge_worker.this`
	plan, err := guard.ParsePlan([]byte(`{"format_version": "1.2", "resource_changes": [
		{"address": "` + addr + `", "mode": "managed", "type": "kamuidash_edge_worker", "name": "this", "change": {"actions": ["delete", "create"]}}],
		"prior_state": {"format_version": "1.0", "values": {"root_module": {"child_modules": [{"address": "module.edge", "resources": [
		{"address": "` + addr + `", "mode": "managed", "type": "kamuidash_edge_worker", "name": "this", "tainted": true}]}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := guard.Evaluate(plan, guard.Options{AllowBootstrap: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed || len(r.Violations) != 1 || r.Violations[0].Rule != guard.RuleWorkerInPlace {
		t.Fatalf("allowed %v, violations %+v; want worker-in-place", r.Allowed, r.Violations)
	}
	for _, want := range []string{"tainted", "untaint '" + addr + "'"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q does not contain %q", r.Reason, want)
		}
	}
}
