# ../shared/outputs.tf describes each output; the rollout command reads smoke_checks.

output "platform_domain" {
  value = module.platform.platform_domain
}

output "hosts" {
  value = module.platform.hosts
}

output "worker_name" {
  value = module.platform.worker_name
}

output "worker_sha256" {
  value = module.platform.worker_sha256
}

output "tunnel_id" {
  value = module.platform.tunnel_id
}

output "tunnel_token" {
  description = "Read it with `terraform output -raw tunnel_token` into a secret store, never a log."
  value       = module.platform.tunnel_token
  sensitive   = true
}

output "router_manifests" {
  value = module.platform.router_manifests
}

output "smoke_checks" {
  value = module.platform.smoke_checks
}
