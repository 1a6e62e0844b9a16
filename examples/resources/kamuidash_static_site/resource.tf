# The built documentation site, uploaded content-addressed under sites/docs/ in the static
# bucket: sites/docs/objects/<sha256> per distinct file, sites/docs/manifests/<version>.json
# per version (and, for a version of more than 256 files, its shards under
# sites/docs/manifests/<version>/). An edit uploads the changed files and a new manifest.
resource "kamuidash_static_site" "docs" {
  name       = "docs"
  bucket     = "kamuidash-dev-static"
  source_dir = "${path.module}/site"
}

# The route record serves the version the plan computed: an edit updates both, the site
# first. To roll back, set manifest to one of the site's kept versions instead, for example
# "${kamuidash_static_site.docs.prefix}manifests/${kamuidash_static_site.docs.versions[1]}.json".
resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = "0f2ac74b498b48028cb68387c421e279"

  static = {
    prefix    = kamuidash_static_site.docs.prefix
    manifest  = kamuidash_static_site.docs.manifest
    not_found = "404.html"
  }
}
