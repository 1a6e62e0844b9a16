# Test fixture: examples/environments/dev as it was before dev and prod became calls of
# examples/environments/shared (the modules called from the root, values in terraform.tfvars).
# TestAccRollout_EnvironmentMovesIntoShared applies it, then plans the current dev against its
# state. Delete it together with examples/environments/*/moved.tf.
#
# The dev environment: the edge (KV namespaces + Worker), the tunnel into the cluster, a
# dynamic app (shop) and a static site (docs). prod is the same configuration with its own
# state and terraform.tfvars; the rollout command applies dev first, then prod.
#
# Provider settings come from the environment: CLOUDFLARE_API_TOKEN, KAMUIDASH_ACCOUNT_ID,
# KAMUIDASH_ZONE_ID, KAMUIDASH_PLATFORM_DOMAIN (and KAMUIDASH_API_BASE_URL for a local edge,
# whose env file exports all of them). Secrets come as TF_VAR_signing_secret and
# TF_VAR_cache_marker.
terraform {
  required_version = ">= 1.8"

  required_providers {
    kamuidash = {
      source = "kamuidash/kamuidash"
    }
  }

  # State on this machine, for a local edge. A team keeps each environment's state remotely,
  # with locking, for example:
  #
  #   backend "s3" {
  #     bucket         = "example-terraform-state"
  #     key            = "kamuidash/dev/terraform.tfstate"
  #     region         = "eu-central-1"
  #     dynamodb_table = "example-terraform-locks"
  #     encrypt        = true
  #   }
  #
  # (or "gcs", "azurerm", or HCP Terraform's cloud block); `terraform init -migrate-state`
  # moves an existing state there.
  backend "local" {
    path = "terraform.tfstate" # per directory, so one state per environment
  }
}

provider "kamuidash" {
  environment = var.environment
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
    source_dir = "${path.module}/site/docs"
    not_found  = "404.html"
  }
  edge_url = var.edge_url
}
