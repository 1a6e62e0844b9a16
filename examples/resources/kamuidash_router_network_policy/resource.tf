# The router accepts traffic only from the tunnel connector, on its proxy port, and a metrics
# scraper on its admin port. The provider needs the cluster: a kubernetes block (or KUBECONFIG).
provider "kamuidash" {
  platform_domain = "kamui.app"
  environment     = "dev"

  kubernetes {
    config_path    = "~/.kube/config"
    config_context = "dev"
  }
}

resource "kamuidash_router_network_policy" "router" {
  namespace   = "kamuidash-system"
  router_port = 8080

  # cloudflared runs in its own namespace here; by default it is the router's.
  connector_pod_labels       = { "app.kubernetes.io/name" = "cloudflared" }
  connector_namespace_labels = { "kubernetes.io/metadata.name" = "cloudflared" }

  metrics_scraper = {
    pod_labels       = { "app.kubernetes.io/name" = "prometheus" }
    namespace_labels = { "kubernetes.io/metadata.name" = "monitoring" }
    port             = 9090
  }

  # Never leave the router without a policy while it is replaced.
  lifecycle {
    create_before_destroy = true
  }
}

output "policies_also_admitting_traffic" {
  value = kamuidash_router_network_policy.router.widening_policies
}
