output "origin_hostname" {
  description = "The tunnel's origin hostname: the `dynamic.origin` of every dynamic tenant app."
  value       = kamuidash_tunnel.this.origin_hostname
}

output "tunnel_id" {
  description = "The tunnel's ID."
  value       = kamuidash_tunnel.this.id
}

output "token" {
  description = "The connector token cloudflared runs with. Hand it to the cluster through a secret store; never print it."
  value       = kamuidash_tunnel.this.token
  sensitive   = true
}

output "router_service" {
  description = "The router's in-cluster URL, which the tunnel's ingress points at."
  value       = local.router_service
}

output "router_manifests" {
  description = "The router's Kubernetes objects as one multi-document YAML stream, for the cluster's tooling (`terraform output -raw router_manifests | kubectl apply -f -`): the Deployment of the router image (by digest), its Service, and, unless `manage_network_policy` is true (then Terraform owns it), the NetworkPolicy that admits only the tunnel-connector pods to the router's port. The signing Secret it mounts is not part of it: create it from the secret store."
  value = join("", [
    for m in concat([local.deployment, local.service], var.manage_network_policy ? [] : [local.network_policy]) : "---\n${yamlencode(m)}"
  ])
}

output "router_image" {
  description = "The router image the Deployment runs, by digest: the pushed `kamuidash_router_image`'s when `router_image_repository` is set, otherwise `router.image`."
  value       = local.router.image

  precondition {
    condition     = local.router.image != null
    error_message = "Set router_image_repository (this module pushes the router image) or router.image (an image pushed elsewhere, by digest)."
  }
}

output "network_policy_id" {
  description = "The router NetworkPolicy's `<namespace>/<name>` when Terraform manages it, otherwise null."
  value       = var.manage_network_policy ? kamuidash_router_network_policy.this[0].id : null
}

output "widening_policies" {
  description = "Other NetworkPolicies of the router's namespace that select the router pods and admit ingress (what they allow reaches the router too); empty when the router's policy alone decides, null when Terraform does not manage it."
  value       = var.manage_network_policy ? kamuidash_router_network_policy.this[0].widening_policies : null
}
