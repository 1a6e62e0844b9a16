resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-dev-routes"
}

# Served at shop.<platform_domain>; dynamic requests go through the tunnel's origin to the
# router, which forwards them to web.tenant-shop.svc.cluster.local:8080.
resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = "origin.dev.kamui.app"
  namespace           = "tenant-shop"
  service             = "web"
  port                = 8080
  timeout             = "30s"
}
