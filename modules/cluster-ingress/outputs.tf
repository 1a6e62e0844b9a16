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
  description = "The router's Kubernetes objects as one multi-document YAML stream: the Deployment of the router image, its Service, and a NetworkPolicy that admits only the tunnel-connector pods to the router's port. Apply it with the cluster's tooling (`terraform output -raw router_manifests | kubectl apply -f -`) until a kamuidash_router_network_policy resource exists. The signing Secret it mounts is not part of it: create it from the secret store."
  value       = join("", [for m in [local.deployment, local.service, local.network_policy] : "---\n${yamlencode(m)}"])
}
