# The prod environment: the configuration in ../shared with prod's values, prod's state and
# prod's static site. dev is the same call with its own; the rollout command applies dev first,
# then prod (after an approval). A change both environments get goes into ../shared; a change
# of one environment's values goes here.
#
# Provider settings come from the environment: CLOUDFLARE_API_TOKEN, KAMUIDASH_ACCOUNT_ID,
# KAMUIDASH_ZONE_ID, KAMUIDASH_PLATFORM_DOMAIN (and KAMUIDASH_API_BASE_URL for a local edge,
# whose env file exports all of them). Secrets come as TF_VAR_signing_secret and
# TF_VAR_cache_marker (variables.tf).
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
  #     key            = "kamuidash/prod/terraform.tfstate"
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

locals {
  environment = "prod"
}

provider "kamuidash" {
  environment = local.environment
  # The router's namespace prefix (modules/cluster-ingress's default): a plan that points an app
  # at a namespace outside it fails, instead of the router refusing the app's every request.
  tenant_namespace_prefix = "tenant-"
}

module "platform" {
  source = "../shared"

  # prod: dev's configuration with production values. A longer freshness budget means fewer KV
  # reads; 1% of successful requests are logged; no app may hold the edge for more than 30s.
  environment      = local.environment
  freshness_budget = "2m0s"
  log_sample_rate  = 0.01
  upstream_timeout = "30s"
  shop_timeout     = "15s"
  router_replicas  = 3
  docs_site_dir    = "${path.module}/site/docs"

  signing_secret                    = var.signing_secret
  cache_marker                      = var.cache_marker
  edge_url                          = var.edge_url
  router_image_repository           = var.router_image_repository
  router_accept_next_signing_secret = var.router_accept_next_signing_secret
  backend_port                      = var.backend_port
}
