# The gateway Worker, two module levels below the root (module.env.module.edge).

variable "name" {
  type = string
}

variable "log_sample_rate" {
  type = number
}

variable "routes_namespace_id" {
  type = string
}

variable "domains_namespace_id" {
  type = string
}

resource "kamuidash_edge_worker" "this" {
  name                 = var.name
  routes_namespace_id  = var.routes_namespace_id
  domains_namespace_id = var.domains_namespace_id
  static_bucket        = "kamuidash-guard-static"
  # Obviously fake test values, as in internal/provider's tests.
  signing_secret  = "0123456789abcdef0123456789abcdef-test"
  cache_marker    = "marker-0123456789-test"
  log_sample_rate = var.log_sample_rate
}
