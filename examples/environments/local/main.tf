# The whole edge on one machine: run by `make demo` against the local edge, whose env file
# provides the provider settings (CLOUDFLARE_API_TOKEN, KAMUIDASH_*). Built from the same
# modules as dev and prod (modules/edge, modules/cluster-ingress, modules/tenant).
terraform {
  required_version = ">= 1.8"

  required_providers {
    kamuidash = {
      source = "kamuidash/kamuidash"
    }
  }

  # The local edge's state is throwaway. A team's environments keep theirs remotely: see
  # examples/environments/dev/main.tf.
  backend "local" {
    path = "terraform.tfstate"
  }
}

provider "kamuidash" {
  environment = "local"
  # Apply returns once the local edge serves each new record and mapping (the provider's
  # edge_url and probe_key come from the local edge's env file).
  verify_propagation = true
}

module "edge" {
  source = "../../../modules/edge"

  environment             = "local"
  worker_name             = "kamuidash-edge-local"
  routes_namespace_title  = "kamuidash-local-routes"
  domains_namespace_title = "kamuidash-local-domains"
  static_bucket           = "kamuidash-local-static"
  freshness_budget        = "45s"
  signing_secret          = var.signing_secret
  cache_marker            = var.cache_marker
  unknown_host_label      = "nobody"
  edge_url                = var.edge_url
}

# The tunnel from the edge to the router; the local edge delivers its ingress to the router
# it started. The router image goes to the local edge's registry and the router's
# NetworkPolicy to its Kubernetes API server (KUBECONFIG, from its env file).
module "ingress" {
  source = "../../../modules/cluster-ingress"

  tunnel_name             = "kamuidash-local"
  origin_hostname         = "origin.${module.edge.platform_domain}"
  router_image_repository = var.router_image_repository
  router                  = {}
}

# A dynamic app: shop.<platform> → tunnel → router → the tenant service (locally, a backend on
# 127.0.0.1:<backend_port>), and the tenant's own hostname for it (the local edge validates
# it after --auto-validate).
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
    timeout   = "10s"
  }
  custom_domains = ["www.shop.example"]
  edge_url       = var.edge_url

  # The custom hostname goes live once the Worker that serves it is uploaded.
  depends_on = [module.edge]
}

# A static app: docs.<platform> is served from the static bucket. The site's files are
# uploaded under a content-addressed prefix; the record points at the version the plan computed.
module "docs" {
  source = "../../../modules/tenant"

  name                = "docs"
  kind                = "static"
  platform_domain     = module.edge.platform_domain
  routes_namespace_id = module.edge.routes_namespace_id
  static = {
    bucket     = module.edge.static_bucket
    source_dir = "${path.module}/site/docs"
    not_found  = "404.html"
  }
  edge_url = var.edge_url
}
