data "kamuidash_custom_domain" "www" {
  hostname             = "www.shop.example"
  domains_namespace_id = "1c5b4a0e2f9d4e7a8b3c6d5e4f3a2b1c"
}

output "www_routes_to" {
  value = data.kamuidash_custom_domain.www.app
}
