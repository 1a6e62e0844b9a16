variable "signing_secret" {
  type      = string
  sensitive = true
}

variable "cache_marker" {
  type      = string
  sensitive = true
}

resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-dev-routes"
}

resource "kamuidash_kv_namespace" "domains" {
  title = "kamuidash-dev-domains"
}

# Built from the sources embedded in the provider; the plan shows content_sha256, and the same
# provider version gives an empty plan.
resource "kamuidash_edge_worker" "edge" {
  name                 = "kamuidash-edge-dev"
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = "kamuidash-dev-static"
  freshness_budget     = "2m0s"
  signing_secret       = var.signing_secret
  cache_marker         = var.cache_marker
  routes               = ["*.kamui.app/*", "kamui.app/*"]
}
