# The environment-wide part of the edge: the two KV namespaces the Worker reads and the Worker
# itself. Tenant apps (modules/tenant) write into the namespaces; the tunnel and the router
# (modules/cluster-ingress) carry the Worker's dynamic requests into the cluster.

# The provider's resolved settings: the platform domain comes from the provider block or
# KAMUIDASH_PLATFORM_DOMAIN, so one configuration serves every environment.
data "kamuidash_platform" "this" {}

locals {
  platform_domain = data.kamuidash_platform.this.platform_domain

  worker_name   = coalesce(var.worker_name, "kamuidash-edge-${var.environment}")
  static_bucket = coalesce(var.static_bucket, "kamuidash-${var.environment}-static")
  # "*/*" catches the tenants' custom hostnames, as on a Cloudflare for SaaS zone.
  # (try: without a platform domain these are empty, and the Worker's precondition says why.)
  routes = var.routes != null ? var.routes : try(["*.${local.platform_domain}/*", "${local.platform_domain}/*", "*/*"], [])

  unknown_host = try("${var.unknown_host_label}.${local.platform_domain}", "")
  edge_base    = trimsuffix(var.edge_url, "/")
}

resource "kamuidash_kv_namespace" "routes" {
  title = coalesce(var.routes_namespace_title, "kamuidash-${var.environment}-routes")
}

resource "kamuidash_kv_namespace" "domains" {
  title = coalesce(var.domains_namespace_title, "kamuidash-${var.environment}-domains")
}

# Every later change of this resource (new provider version, settings) is an in-place upload;
# roll it out on its own (the guard refuses a Worker change mixed with anything else).
resource "kamuidash_edge_worker" "this" {
  name                 = local.worker_name
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = local.static_bucket
  freshness_budget     = var.freshness_budget
  signing_secret       = var.signing_secret
  cache_marker         = var.cache_marker
  log_sample_rate      = var.log_sample_rate
  upstream_timeout     = var.upstream_timeout
  routes               = local.routes

  lifecycle {
    precondition {
      condition     = local.platform_domain != null
      error_message = "The provider has no platform domain: set platform_domain in the provider block or KAMUIDASH_PLATFORM_DOMAIN in the environment."
    }
  }
}
