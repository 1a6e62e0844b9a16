output "routes_namespace_id" {
  description = "The ID of the `ROUTES` KV namespace: the `routes_namespace_id` of every tenant app."
  value       = local.routes_namespace_id
}

output "domains_namespace_id" {
  description = "The ID of the `DOMAINS` KV namespace: the `domains_namespace_id` of every custom domain."
  value       = local.domains_namespace_id
}

output "worker_routes_namespace_id" {
  description = "The ID of the `ROUTES` namespace the Worker reads: `routes_namespace_id` except during a route-data migration."
  value       = local.worker_routes_namespace_id
}

output "worker_domains_namespace_id" {
  description = "The ID of the `DOMAINS` namespace the Worker reads: `domains_namespace_id` except during a route-data migration."
  value       = local.worker_domains_namespace_id
}

output "worker_name" {
  description = "The edge Worker's script name."
  value       = kamuidash_edge_worker.this.name
}

output "content_sha256" {
  description = "The sha256 of the Worker's built modules: a new value means new code at the edge."
  value       = kamuidash_edge_worker.this.content_sha256
}

output "static_bucket" {
  description = "The R2 bucket the Worker serves static sites from: the `static.bucket` of static tenant apps."
  value       = kamuidash_edge_worker.this.static_bucket
}

output "platform_domain" {
  description = "The platform domain (from the provider's settings): apps are served at `<app>.<platform_domain>`."
  value       = local.platform_domain
}

output "unknown_host" {
  description = "The platform host no app serves, which the unknown-host smoke check requests."
  value       = local.unknown_host
}

output "smoke_checks" {
  description = "The edge's own smoke check: an unknown platform host gets the Worker's fixed 404, which is never cached by clients (`Cache-Control: no-store`). Same shape as modules/tenant's `smoke_checks`; concatenate them in the root's `smoke_checks` output."
  value = tolist([
    {
      name          = "edge/unknown-host"
      url           = "${local.edge_base != "" ? local.edge_base : "https://${local.unknown_host}"}/"
      host          = local.unknown_host
      expect_status = 404
      expect_headers = tomap({
        "Cache-Control" = "no-store"
      })
    },
  ])
  # The check needs the Worker, not just its name: wait for the upload.
  depends_on = [kamuidash_edge_worker.this]
}

output "fallback_origin_id" {
  description = "The ID of the zone whose fallback origin is active, once it is: the `fallback_origin_id` of every tenant with custom domains, so that their custom hostnames wait for it. With `manage_fallback_origin = false`, the provider's zone ID."
  value       = var.manage_fallback_origin ? kamuidash_fallback_origin.this[0].id : data.kamuidash_platform.this.zone_id
}

output "fallback_origin_hostname" {
  description = "The fallback origin's hostname; null when the module does not manage it."
  value       = var.manage_fallback_origin ? kamuidash_fallback_origin.this[0].hostname : null
}

output "fallback_origin_status" {
  description = "The fallback origin's status (`active` after an apply); null when the module does not manage it."
  value       = var.manage_fallback_origin ? kamuidash_fallback_origin.this[0].status : null
}
