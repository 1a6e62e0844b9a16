resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-dev-routes"
}

# A static site served from the static bucket under a content-addressed prefix.
resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id

  static = {
    prefix    = "sites/docs/3f2a9c/"
    not_found = "404.html"
  }
}

# The platform's own landing page at the apex of the platform domain. Like every upstream, its
# namespace carries the router's tenant prefix (tenant- by default), or the router refuses it.
resource "kamuidash_route_record" "apex" {
  app                 = "apex"
  routes_namespace_id = kamuidash_kv_namespace.routes.id

  dynamic = {
    origin   = "origin.dev.kamui.app"
    upstream = "tenant-platform/landing:8080"
  }
}
