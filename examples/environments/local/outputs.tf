output "platform_domain" {
  value = local.platform
}

output "hosts" {
  description = "The hosts the demo requests: dynamic, custom domain, static, unknown."
  value = {
    dynamic = kamuidash_tenant_app.shop.platform_hostname
    custom  = kamuidash_custom_domain.www.hostname
    static  = "docs.${local.platform}"
    unknown = "nobody.${local.platform}"
  }
}

output "worker_sha256" {
  value = kamuidash_edge_worker.edge.content_sha256
}
