package guard

import (
	"fmt"
	"slices"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
)

// Options adjust the rules. The zero value is the strict guard a rollout uses.
type Options struct {
	// AllowBootstrap lets a plan create a Worker (its first deployment in an environment),
	// together with whatever else the new environment needs. Default false: a create of the
	// Worker is refused, because in an existing environment it means the Worker fell out of
	// the state and applying would clash with, or shadow, the one serving traffic.
	AllowBootstrap bool

	// Classes are extra type→class mappings, consulted before the built-in table (see
	// LoadClasses for the file format). Default nil: the built-in table only.
	Classes *Table
}

// classify returns a resource type's classes: the extra table, then the built-ins, else other.
// One exception: a prefix of the extra table does not take the worker class from a type the
// built-ins class as a Worker. A broad pattern ("cloudflare_*": "other") would otherwise turn
// the guard off for the one change it exists for, without a word; naming the type exactly
// still reclassifies it.
func (o Options) classify(builtin *Table) func(string) []Class {
	return func(resourceType string) []Class {
		builtins, known := builtin.Lookup(resourceType)
		if cs, exact, ok := o.Classes.lookup(resourceType); ok {
			if !exact && known && slices.Contains(builtins, ClassWorker) && !slices.Contains(cs, ClassWorker) {
				return builtins
			}
			return cs
		}
		if known {
			return builtins
		}
		return []Class{ClassOther}
	}
}

// Rule names a rule a plan can break; it is stable, for machines reading the JSON report.
type Rule string

// The rules.
const (
	// RuleWorkerInPlace: a Worker change must be an in-place update, never a delete, a replace
	// or a forget, in any plan.
	RuleWorkerInPlace Rule = "worker-in-place"
	// RuleWorkerBootstrap: creating a Worker needs Options.AllowBootstrap.
	RuleWorkerBootstrap Rule = "worker-bootstrap"
	// RuleWorkerAlone: a plan that changes an existing Worker changes nothing of another class.
	RuleWorkerAlone Rule = "worker-alone"
)

// Violation is one broken rule and the changes that break it.
type Violation struct {
	Rule      Rule     `json:"rule"`
	Addresses []string `json:"addresses"`
	Message   string   `json:"message"`
}

// Report is the guard's judgement of one plan.
type Report struct {
	// TerraformVersion is the version of the CLI that made the plan, as the plan says.
	TerraformVersion string `json:"terraform_version,omitempty"`
	// Allowed is the verdict.
	Allowed bool `json:"allowed"`
	// Reason explains the verdict in one or more sentences naming the addresses concerned.
	Reason string `json:"reason"`
	// Violations are the broken rules; empty when Allowed.
	Violations []Violation `json:"violations"`
	// Changes are the plan's effective resource changes (no-ops and reads left out).
	Changes []Change `json:"changes"`
}

// Verdict is "allowed" or "refused".
func (r *Report) Verdict() string {
	if r.Allowed {
		return "allowed"
	}
	return "refused"
}

// Evaluate judges a plan. The error is an *InputError when the plan's resource changes cannot
// be read (a change without actions, an unknown action); the rules never err.
func Evaluate(plan *tfjson.Plan, opts Options) (*Report, error) {
	if plan == nil {
		return nil, &InputError{Problem: "there is no plan"}
	}
	changes, err := changesOf(plan, opts.classify(Builtin()))
	if err != nil {
		return nil, err
	}
	r := &Report{TerraformVersion: plan.TerraformVersion, Changes: changes, Violations: []Violation{}}
	if r.Changes == nil {
		r.Changes = []Change{}
	}

	var creates, destructive, updates, others []Change
	for _, c := range changes {
		if c.Has(ClassWorker) {
			switch {
			case c.isUpdate():
				updates = append(updates, c)
			case c.isCreate():
				creates = append(creates, c)
			default:
				destructive = append(destructive, c)
			}
		}
		if hasOtherThanWorker(c) {
			others = append(others, c)
		}
	}

	if len(destructive) > 0 {
		message := fmt.Sprintf(
			"the plan would %s; a Worker is only ever updated in place, since while it is replaced or gone "+
				"every request to the edge fails: keep the Worker's name (a new name replaces it) and keep it in the "+
				"configuration, and retire a Worker by hand, never in a rollout",
			describe(destructive))
		// A tainted Worker is replaced whatever its configuration says, so the advice above
		// cannot help: its create failed after the upload, and untainting it makes the next
		// plan an in-place update that finishes the job.
		for _, c := range destructive {
			if c.tainted && tfjson.Actions(c.Actions).Replace() {
				message += fmt.Sprintf("; %s is replaced because the state marks it tainted (its create failed partway, or it "+
					"was tainted by hand): untaint it (terraform untaint '%s', or the same with tofu) and plan again",
					c.Address, c.Address)
			}
		}
		r.refuse(RuleWorkerInPlace, destructive, message)
	}
	if len(creates) > 0 && !opts.AllowBootstrap {
		r.refuse(RuleWorkerBootstrap, creates, fmt.Sprintf(
			"the plan would create the Worker %s for the first time (a bootstrap); in an environment that already "+
				"serves traffic this means the Worker fell out of the state (import it instead), and for a new "+
				"environment allow the bootstrap explicitly (guard --allow-bootstrap)",
			addressList(creates)))
	}
	existing := append(append([]Change(nil), updates...), destructive...)
	// A bootstrap may bring the rest of its new environment along, and a new environment only
	// creates (a retry also replaces what a failed create left tainted): beside a Worker's
	// create, an update, replace, delete or forget of another class is a change to an
	// environment that exists, which must not ride along with new code. It is reported whether
	// the bootstrap is allowed or not, so that allowing it is not the next step the operator is
	// sent to.
	var existingOthers []Change
	for _, c := range others {
		if !c.finishesCreate() {
			existingOthers = append(existingOthers, c)
		}
	}
	switch {
	case len(existing) > 0 && len(others) > 0:
		r.refuse(RuleWorkerAlone, others, fmt.Sprintf(
			"the plan changes the Worker (%s) together with changes of other classes: %s; apply those in a plan "+
				"of their own, then the Worker's update alone, so that a bad rollout has one suspect",
			addressList(existing), describeClasses(others)))
	case len(creates) > 0 && len(existingOthers) > 0:
		r.refuse(RuleWorkerAlone, existingOthers, fmt.Sprintf(
			"the plan creates the Worker (%s) and also changes what already exists: %s; a bootstrap only creates "+
				"the rest of its new environment, so apply those changes in a plan of their own",
			addressList(creates), describe(existingOthers)))
	}
	if len(r.Violations) > 0 {
		msgs := make([]string, len(r.Violations))
		for i, v := range r.Violations {
			msgs[i] = v.Message
		}
		r.Reason = strings.Join(msgs, ". ")
		return r, nil
	}

	r.Allowed = true
	switch {
	case len(changes) == 0:
		r.Reason = "the plan changes no resources"
	case len(creates) > 0:
		r.Reason = fmt.Sprintf("the plan creates the Worker %s for the first time and a bootstrap is allowed", addressList(creates))
		if len(others) > 0 {
			r.Reason += fmt.Sprintf("; it also changes %s, as a new environment does", classSummary(others))
		}
	case len(updates) > 0:
		r.Reason = fmt.Sprintf("the plan only updates the Worker in place (%s)", addressList(updates))
	default:
		r.Reason = fmt.Sprintf("the plan does not change the Worker (it changes %s)", classSummary(changes))
	}
	return r, nil
}

func (r *Report) refuse(rule Rule, culprits []Change, message string) {
	addrs := make([]string, len(culprits))
	for i, c := range culprits {
		addrs[i] = c.DisplayAddress()
	}
	r.Violations = append(r.Violations, Violation{Rule: rule, Addresses: addrs, Message: message})
}

func hasOtherThanWorker(c Change) bool {
	for _, k := range c.Classes {
		if k != ClassWorker {
			return true
		}
	}
	return false
}

// addressList joins addresses for a sentence.
func addressList(cs []Change) string {
	addrs := make([]string, len(cs))
	for i, c := range cs {
		addrs[i] = c.DisplayAddress()
	}
	return strings.Join(addrs, ", ")
}

// describe names each change with its action: "replace (delete, then create) x, delete y".
func describe(cs []Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Action() + " " + c.DisplayAddress()
	}
	return strings.Join(parts, ", ")
}

// describeClasses names each change with its classes: "x (kv), y (dns, kv)".
func describeClasses(cs []Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		names := make([]string, len(c.Classes))
		for j, k := range c.Classes {
			names[j] = string(k)
		}
		parts[i] = c.DisplayAddress() + " (" + strings.Join(names, ", ") + ")"
	}
	return strings.Join(parts, ", ")
}

// classSummary counts changes per class: "2 kv, 1 dns".
func classSummary(cs []Change) string {
	var parts []string
	for _, k := range AllClasses {
		n := 0
		for _, c := range cs {
			if c.Has(k) {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}
