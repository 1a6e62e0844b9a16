// Package guard decides whether a Terraform or OpenTofu plan may be applied by the staged
// rollout, from the plan's JSON form (`terraform show -json plan.out`).
//
// The rule comes from operations: every public request enters one Worker, so a plan that
// touches the Worker must be nothing but the Worker's in-place update. Routing data (KV),
// static delivery, DNS, the tunnel and the cluster go in plans of their own, so that a bad
// rollout has exactly one suspect and is undone by re-applying the previous Worker. The guard
// therefore classifies every resource change (see [Class]), for this provider's types and for
// the official Cloudflare and Kubernetes providers' types, and evaluates the rules in
// [Evaluate]. The `guard` sub-command ([Main]) prints the result for people and CI.
package guard
