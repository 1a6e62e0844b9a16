# The tunnel that carries the Worker's dynamic requests to the router in the cluster. It also
# owns the zone Cache Rule that keeps origin.dev.kamui.app out of Cloudflare's cache.
resource "kamuidash_tunnel" "edge" {
  name            = "kamuidash-dev"
  origin_hostname = "origin.dev.kamui.app"
  router_service  = "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080"

  # Change to rotate the connector token (a new secret, same tunnel); roll the connectors out
  # with the new token afterwards.
  token_rotation = "2026-12"
}

# Hand the connector token to cloudflared through a secret store, never a plain output.
output "tunnel_id" {
  value = kamuidash_tunnel.edge.id
}
