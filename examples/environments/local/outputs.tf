output "platform_domain" {
  value = module.edge.platform_domain
}

output "hosts" {
  description = "The hosts the demo requests: dynamic, custom domain, static, unknown."
  value = {
    dynamic = module.shop.platform_hostname
    custom  = module.shop.custom_hostnames[0]
    static  = module.docs.platform_hostname
    unknown = module.edge.unknown_host
  }
}

output "worker_sha256" {
  value = module.edge.content_sha256
}

output "smoke_checks" {
  description = "What the edge must answer once applied (the rollout command's contract): the apps' hosts, then an unknown host."
  value       = concat(module.shop.smoke_checks, module.docs.smoke_checks, module.edge.smoke_checks)
}

output "router_manifests" {
  description = "The router's Deployment and Service for the cluster's tooling (the local edge runs its own router; Terraform owns the NetworkPolicy)."
  value       = module.ingress.router_manifests
}

output "cluster" {
  description = "The cluster side as applied: the router image by digest and the router's NetworkPolicy."
  value = {
    router_image      = module.ingress.router_image
    network_policy    = module.ingress.network_policy_id
    widening_policies = module.ingress.widening_policies
  }
}

output "fallback_origin" {
  description = "The SaaS zone's fallback origin the custom domain waited for."
  value = {
    hostname = module.edge.fallback_origin_hostname
    status   = module.edge.fallback_origin_status
  }
}
