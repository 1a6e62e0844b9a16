# The two namespaces the edge Worker reads: app → route record, and custom hostname → app.
resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-dev-routes"
}

resource "kamuidash_kv_namespace" "domains" {
  title = "kamuidash-dev-domains"
}
