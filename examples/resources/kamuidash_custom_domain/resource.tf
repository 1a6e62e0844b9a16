resource "kamuidash_kv_namespace" "domains" {
  title = "kamuidash-dev-domains"
}

# The tenant publishes the TXT records in ownership_verification and ssl_validation at their
# DNS provider; apply waits until the hostname is active, then routes it to the app.
resource "kamuidash_custom_domain" "www" {
  hostname             = "www.shop.example"
  app                  = "shop"
  domains_namespace_id = kamuidash_kv_namespace.domains.id

  timeouts = {
    create = "30m"
  }
}

output "publish_these_txt_records" {
  value = [
    kamuidash_custom_domain.www.ownership_verification,
    kamuidash_custom_domain.www.ssl_validation,
  ]
}
