# The SaaS zone's fallback origin: a proxied AAAA 100:: placeholder (the Worker route "*/*"
# serves the custom hostnames) and the fallback origin on it. Apply waits until it is active.
resource "kamuidash_fallback_origin" "this" {
  hostname = "fallback.kamui.app"

  timeouts = {
    create = "20m"
  }
}

# Custom hostnames are served only once the zone's fallback origin is active.
resource "kamuidash_custom_domain" "www" {
  hostname             = "www.shop.example"
  app                  = "shop"
  domains_namespace_id = "0f2ac74b498b48028cb68387c421e279"

  depends_on = [kamuidash_fallback_origin.this]
}
