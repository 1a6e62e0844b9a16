// Package guard decides whether a Terraform or OpenTofu plan may be applied by the staged
// rollout, from the plan's JSON form (`terraform show -json plan.out`).
//
// The rule comes from operations: every public request enters one Worker, so a plan that
// touches the Worker must be nothing but the Worker's in-place update. Routing data (KV),
// static delivery, DNS, the tunnel and the cluster go in plans of their own, so that a bad
// rollout has exactly one suspect and is undone by re-applying the previous Worker. The guard
// therefore classifies every resource change (see [Class] and [Builtin]), for this provider's
// types and for the official Cloudflare and Kubernetes providers' types, in modules at any
// depth, and judges the plan in [Evaluate]:
//
//   - a Worker change must be an in-place update: a delete, a replace (in either order) or a
//     forget of the Worker is refused in every plan;
//   - a plan that changes an existing Worker changes nothing of another class (an unknown
//     resource type is class other, which counts);
//   - a plan that creates a Worker (a bootstrap) is refused unless [Options].AllowBootstrap is
//     set, and then may create the rest of the new environment with it;
//   - a plan without Worker changes is allowed, whatever it mixes.
//
// No-ops, reads and data sources are left out: applying them changes nothing at the edge.
//
// The `guard` sub-command ([Main]) prints a table of the changes by class and the verdict:
//
//	terraform plan -out=plan.out
//	terraform show -json plan.out | terraform-provider-kamuidash guard [--plan FILE|-] \
//	    [--format text|json|markdown] [--allow-bootstrap] [--classes FILE]
//
// It exits 0 when the plan is allowed, 1 when it is refused and 2 when the input or the usage
// is unusable (not a plan, truncated, an unsupported format_version), so CI can tell "refused"
// from "could not judge". The markdown format is for a CI step summary, the json format for
// machines. A classes file (--classes, [LoadClasses]) maps further resource types, or prefixes
// such as "acme_dns_*", to classes, ahead of the built-in table.
package guard
