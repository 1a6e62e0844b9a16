# Built from the router sources embedded in the provider and pushed by digest; the plan shows
# the digest, and the same sources and Go toolchain give an empty plan, also after a provider
# upgrade. Credentials come from `docker login` (the Docker configuration).
resource "kamuidash_router_image" "router" {
  repository = "registry.example.com/platform/kamuidash-router"
}

# Deploy the image by digest, for example as the router image of the cluster-ingress module:
#   router = { image = kamuidash_router_image.router.image_ref, ... }
output "router_image" {
  value = kamuidash_router_image.router.image_ref
}
