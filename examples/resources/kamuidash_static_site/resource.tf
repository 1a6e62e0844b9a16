# The built documentation site, uploaded under sites/docs/<version>/ in the static bucket.
resource "kamuidash_static_site" "docs" {
  name       = "docs"
  bucket     = "kamuidash-dev-static"
  source_dir = "${path.module}/site"
}

# The route record serves whatever version the plan computed: a content change updates
# both, the site first.
resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = "0f2ac74b498b48028cb68387c421e279"

  static = {
    prefix    = kamuidash_static_site.docs.prefix
    not_found = "404.html"
  }
}
