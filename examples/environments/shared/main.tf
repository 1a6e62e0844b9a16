# The configuration dev and prod share: the edge (KV namespaces + Worker), the tunnel into the
# cluster, a dynamic app (shop) and a static site (docs). It is not an environment of its own:
# each environment is a directory beside it (../dev, ../prod) that holds only its backend, its
# provider block, its values and its static site, and calls this module. The rollout command
# applies those directories, dev first, then prod.
#
# The provider is configured by the calling environment, never here, so that the environment
# stays free to use count, for_each or depends_on on this module.
terraform {
  required_version = ">= 1.8"

  required_providers {
    kamuidash = {
      source = "kamuidash/kamuidash"
    }
  }
}

module "edge" {
  source = "../../../modules/edge"

  environment      = var.environment
  freshness_budget = var.freshness_budget
  log_sample_rate  = var.log_sample_rate
  upstream_timeout = var.upstream_timeout
  signing_secret   = var.signing_secret
  cache_marker     = var.cache_marker
  edge_url         = var.edge_url
}

module "ingress" {
  source = "../../../modules/cluster-ingress"

  tunnel_name     = "kamuidash-${var.environment}"
  origin_hostname = "${var.origin_label}.${module.edge.platform_domain}"
  # The router image is built from the provider's sources and pushed by digest; the router's
  # NetworkPolicy is applied to the cluster KUBECONFIG names (or the provider's kubernetes block).
  router_image_repository = var.router_image_repository
  router = {
    replicas                   = var.router_replicas
    accept_next_signing_secret = var.router_accept_next_signing_secret
  }
}

# A dynamic app: shop.<platform> → tunnel → router → tenant-shop/web:<backend_port>.
module "shop" {
  source = "../../../modules/tenant"

  name                 = "shop"
  kind                 = "dynamic"
  platform_domain      = module.edge.platform_domain
  routes_namespace_id  = module.edge.routes_namespace_id
  domains_namespace_id = module.edge.domains_namespace_id
  # The custom domains wait for the zone's fallback origin (modules/edge) to be active.
  fallback_origin_id = module.edge.fallback_origin_id
  dynamic = {
    origin    = module.ingress.origin_hostname
    namespace = "tenant-shop"
    service   = "web"
    port      = var.backend_port
    timeout   = var.shop_timeout
  }
  custom_domains = var.shop_custom_domains
  edge_url       = var.edge_url

  # A custom hostname goes live once the Worker that serves it is uploaded.
  depends_on = [module.edge]
}

# A static app: docs.<platform> served from the static bucket, no tunnel.
module "docs" {
  source = "../../../modules/tenant"

  name                = "docs"
  kind                = "static"
  platform_domain     = module.edge.platform_domain
  routes_namespace_id = module.edge.routes_namespace_id
  static = {
    bucket     = module.edge.static_bucket
    source_dir = var.docs_site_dir
    not_found  = "404.html"
  }
  edge_url = var.edge_url
}
