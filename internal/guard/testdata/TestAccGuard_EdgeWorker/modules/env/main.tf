# One environment: its KV namespaces, a static site's route record and the Worker.

variable "worker_name" {
  type = string
}

variable "log_sample_rate" {
  type = number
}

variable "docs_release" {
  type = string
}

resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-guard-routes"
}

resource "kamuidash_kv_namespace" "domains" {
  title = "kamuidash-guard-domains"
}

resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  static = {
    prefix = "sites/docs/${var.docs_release}/"
  }
}

module "edge" {
  source = "../edge"

  name                 = var.worker_name
  log_sample_rate      = var.log_sample_rate
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
}
