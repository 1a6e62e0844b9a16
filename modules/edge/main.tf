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

  # The SaaS zone's fallback origin: a placeholder, since the "*/*" route sends the custom
  # hostnames' requests to the Worker.
  fallback_origin_hostname = var.fallback_origin_hostname != null ? var.fallback_origin_hostname : try("fallback.${local.platform_domain}", null)

  # The tenants' namespaces (outputs) and the Worker's: the same but for the binding switch of a
  # route-data migration (README: migrating the route data to a new namespace).
  routes_namespace_id         = var.routes_namespace_id != null ? var.routes_namespace_id : kamuidash_kv_namespace.routes[0].id
  domains_namespace_id        = var.domains_namespace_id != null ? var.domains_namespace_id : kamuidash_kv_namespace.domains[0].id
  worker_routes_namespace_id  = coalesce(var.worker_routes_namespace_id, local.routes_namespace_id)
  worker_domains_namespace_id = coalesce(var.worker_domains_namespace_id, local.domains_namespace_id)
}

# The module's own namespaces, unless the environment brings its own (after a migration).
resource "kamuidash_kv_namespace" "routes" {
  count = var.routes_namespace_id == null ? 1 : 0
  title = coalesce(var.routes_namespace_title, "kamuidash-${var.environment}-routes")
}

resource "kamuidash_kv_namespace" "domains" {
  count = var.domains_namespace_id == null ? 1 : 0
  title = coalesce(var.domains_namespace_title, "kamuidash-${var.environment}-domains")
}

# Environments applied before the namespaces became optional keep theirs.
moved {
  from = kamuidash_kv_namespace.routes
  to   = kamuidash_kv_namespace.routes[0]
}

moved {
  from = kamuidash_kv_namespace.domains
  to   = kamuidash_kv_namespace.domains[0]
}

# Every later change of this resource (new provider version, settings) is an in-place upload;
# roll it out on its own (the guard refuses a Worker change mixed with anything else).
resource "kamuidash_edge_worker" "this" {
  name                 = local.worker_name
  routes_namespace_id  = local.worker_routes_namespace_id
  domains_namespace_id = local.worker_domains_namespace_id
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

# The zone's fallback origin: Cloudflare serves no custom hostname until it is active, so the
# tenants' custom domains depend on it (modules/tenant fallback_origin_id). Apply waits until it
# is active. A zone whose fallback origin is managed elsewhere sets manage_fallback_origin = false.
resource "kamuidash_fallback_origin" "this" {
  count = var.manage_fallback_origin ? 1 : 0

  hostname = local.fallback_origin_hostname

  timeouts = var.fallback_origin_timeout == null ? null : {
    create = var.fallback_origin_timeout
    update = var.fallback_origin_timeout
  }

  lifecycle {
    precondition {
      condition     = local.platform_domain != null
      error_message = "The provider has no platform domain: set platform_domain in the provider block or KAMUIDASH_PLATFORM_DOMAIN in the environment."
    }
  }
}
