locals {
  # The answer an app's hosts must give once the route has reached the edge: 200 for an
  # active app, the edge's fixed 503 otherwise.
  expect_status  = var.status == "active" ? 200 : 503
  expect_headers = var.smoke_expect_headers != null ? var.smoke_expect_headers : (local.is_static && var.status == "active" ? { "Cache-Control" = "must-revalidate" } : {})
  edge_base      = trimsuffix(var.edge_url, "/")

  hosts = concat(
    [{ name = "${var.name}/platform", host = local.platform_hostname }],
    [for h in var.custom_domains : { name = "${var.name}/custom/${h}", host = h }],
  )
}

output "platform_hostname" {
  description = "The platform host that serves the app, `<name>.<platform_domain>`."
  value       = local.is_dynamic ? kamuidash_tenant_app.this[0].platform_hostname : local.platform_hostname
}

output "custom_hostnames" {
  description = "The app's custom hostnames, each active (apply waited for it) and mapped to the app."
  value       = [for h in var.custom_domains : kamuidash_custom_domain.this[h].hostname]
}

output "route_rev" {
  description = "The content hash of the app's published route record; it changes exactly when the record does."
  value       = local.is_dynamic ? kamuidash_tenant_app.this[0].rev : kamuidash_route_record.static[0].rev
}

output "static_manifest" {
  description = "For a static app, the manifest of the version the record serves; null for a dynamic app."
  value       = local.static_manifest
}

output "static_versions" {
  description = "For a static app, the kept versions, newest first: what `static.serve_version` may name; null for a dynamic app."
  value       = local.is_static ? kamuidash_static_site.this[0].versions : null
}

output "smoke_checks" {
  description = "What the app's hosts must answer once applied, one check per host (the platform host, then each custom domain): a GET of `url` with the Host header `host` must answer `expect_status` with every `expect_headers` header containing its value. The rollout command reads the root's concatenation of these."
  value = tolist([
    for h in local.hosts : {
      name           = h.name
      url            = "${local.edge_base != "" ? local.edge_base : "https://${h.host}"}${var.smoke_path}"
      host           = h.host
      expect_status  = local.expect_status
      expect_headers = tomap(local.expect_headers)
    }
  ])
  # A check holds only once the records (and the mappings) are written.
  depends_on = [kamuidash_tenant_app.this, kamuidash_route_record.static, kamuidash_custom_domain.this]
}
