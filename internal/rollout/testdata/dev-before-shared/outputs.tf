output "platform_domain" {
  description = "The platform domain: apps are served at <app>.<platform_domain>."
  value       = module.edge.platform_domain
}

output "hosts" {
  description = "The environment's public hosts by role."
  value = {
    dynamic = module.shop.platform_hostname
    custom  = module.shop.custom_hostnames
    static  = module.docs.platform_hostname
    unknown = module.edge.unknown_host
  }
}

output "worker_name" {
  description = "The edge Worker's script name."
  value       = module.edge.worker_name
}

output "worker_sha256" {
  description = "The sha256 of the deployed Worker's code."
  value       = module.edge.content_sha256
}

output "tunnel_id" {
  description = "The tunnel's ID."
  value       = module.ingress.tunnel_id
}

output "tunnel_token" {
  description = "The connector token for cloudflared in the cluster; read it with `terraform output -raw tunnel_token` into a secret store, never a log."
  value       = module.ingress.token
  sensitive   = true
}

output "router_manifests" {
  description = "The router's Deployment, Service and NetworkPolicy, for the cluster's tooling to apply."
  value       = module.ingress.router_manifests
}

output "smoke_checks" {
  description = "What the edge must answer once applied (the rollout command's contract): the apps' hosts, then an unknown host."
  value       = concat(module.shop.smoke_checks, module.docs.smoke_checks, module.edge.smoke_checks)
}
