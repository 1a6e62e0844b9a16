# The same environment with the Worker taken out of the configuration: applying it would delete
# the Worker.

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
