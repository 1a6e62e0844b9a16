# The whole edge on one machine: run by `make demo` against the local edge, whose env file
# provides the provider settings (CLOUDFLARE_API_TOKEN, KAMUIDASH_*).
terraform {
  required_providers {
    kamuidash = {
      source = "kamuidash/kamuidash"
    }
  }
}

provider "kamuidash" {
  environment = "local"
}

data "kamuidash_platform" "this" {}

locals {
  platform      = data.kamuidash_platform.this.platform_domain
  static_bucket = "kamuidash-local-static"
}

resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-local-routes"
}

resource "kamuidash_kv_namespace" "domains" {
  title = "kamuidash-local-domains"
}

# The tunnel from the edge to the router; the local edge delivers its ingress to the router
# it started.
resource "kamuidash_tunnel" "edge" {
  name            = "kamuidash-local"
  origin_hostname = "origin.${local.platform}"
  router_service  = "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080"
}

resource "kamuidash_edge_worker" "edge" {
  name                 = "kamuidash-edge-local"
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = local.static_bucket
  freshness_budget     = "45s"
  signing_secret       = var.signing_secret
  cache_marker         = var.cache_marker
  # "*/*" catches the tenants' custom hostnames, as on a Cloudflare for SaaS zone.
  routes = ["*.${local.platform}/*", "${local.platform}/*", "*/*"]
}

# A dynamic app: shop.<platform> → tunnel → router → the tenant service (locally, a backend on
# 127.0.0.1:<backend_port>).
resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = kamuidash_tunnel.edge.origin_hostname
  namespace           = "tenant-shop"
  service             = "web"
  port                = var.backend_port
  timeout             = "10s"
}

# A static app: docs.<platform> is served from the static bucket. The site's files are
# uploaded under a content-addressed prefix; the record points at the version the plan computed.
resource "kamuidash_static_site" "docs" {
  name       = "docs"
  bucket     = local.static_bucket
  source_dir = "${path.module}/site/docs"
}

resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  static = {
    prefix    = kamuidash_static_site.docs.prefix
    not_found = "404.html"
  }
}

# The tenant's own hostname for the shop; the local edge validates it after --auto-validate.
resource "kamuidash_custom_domain" "www" {
  hostname             = "www.shop.example"
  app                  = kamuidash_tenant_app.shop.name
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  depends_on           = [kamuidash_edge_worker.edge]
}
