# The path from the edge into the cluster: a cloudflared tunnel whose ingress sends the origin
# hostname to the router's Service, and the router's Kubernetes objects.
#
# Two cluster-side objects are Terraform's: the router image (built from the provider's
# embedded sources and pushed by digest, when router_image_repository is set) and the router's
# NetworkPolicy (when manage_network_policy is true, through the provider's kubernetes block or
# KUBECONFIG). The Deployment and Service are rendered as YAML (output router_manifests), with
# the image's digest, for the cluster's own tooling (kubectl apply, Argo CD, Flux) to apply; so
# is the NetworkPolicy when Terraform does not manage it.

resource "kamuidash_router_image" "this" {
  count      = var.router_image_repository == null ? 0 : 1
  repository = var.router_image_repository
}

locals {
  router = merge(var.router, {
    image = var.router_image_repository == null ? var.router.image : kamuidash_router_image.this[0].image_ref
  })
  router_service = "http://${local.router.name}.${local.router.namespace}.svc.cluster.local:${local.router.port}"

  router_labels = {
    "app.kubernetes.io/name"       = local.router.name
    "app.kubernetes.io/component"  = "router"
    "app.kubernetes.io/part-of"    = "kamuidash"
    "app.kubernetes.io/managed-by" = "terraform"
  }
  router_selector = {
    "app.kubernetes.io/name"      = local.router.name
    "app.kubernetes.io/component" = "router"
  }
  signing_mount = "/etc/kamuidash/signing"
  router_args = concat(
    [
      "--listen=:${local.router.port}",
      "--admin-listen=:${local.router.admin_port}",
      "--namespace-prefix=${local.router.tenant_namespace_prefix}",
      "--secret-file=${local.signing_mount}/signing-secret",
    ],
    # While the signing secret rotates: the key the Worker signs with next, from the same
    # Secret. Changing this list changes the pod template, so the router rolls out with it.
    local.router.accept_next_signing_secret ? ["--next-secret-file=${local.signing_mount}/signing-secret-next"] : [],
  )

  deployment = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata = {
      name      = local.router.name
      namespace = local.router.namespace
      labels    = local.router_labels
    }
    spec = {
      replicas = local.router.replicas
      selector = { matchLabels = local.router_selector }
      template = {
        metadata = { labels = local.router_labels }
        spec = {
          automountServiceAccountToken = false
          securityContext = {
            runAsNonRoot   = true
            runAsUser      = 65532
            runAsGroup     = 65532
            seccompProfile = { type = "RuntimeDefault" }
          }
          containers = [{
            name  = "router"
            image = local.router.image
            args  = local.router_args
            ports = [
              { name = "http", containerPort = local.router.port, protocol = "TCP" },
              { name = "admin", containerPort = local.router.admin_port, protocol = "TCP" },
            ]
            readinessProbe = { httpGet = { path = "/readyz", port = "admin" }, periodSeconds = 5 }
            livenessProbe  = { httpGet = { path = "/healthz", port = "admin" }, periodSeconds = 10 }
            resources = {
              requests = { cpu = "100m", memory = "64Mi" }
              limits   = { memory = "256Mi" }
            }
            securityContext = {
              allowPrivilegeEscalation = false
              readOnlyRootFilesystem   = true
              capabilities             = { drop = ["ALL"] }
            }
            volumeMounts = [{ name = "signing", mountPath = local.signing_mount, readOnly = true }]
          }]
          # The router drains in-flight requests for up to 30 s after SIGTERM.
          terminationGracePeriodSeconds = 40
          volumes = [{
            name   = "signing"
            secret = { secretName = local.router.signing_secret_name, defaultMode = 256 } # 0400
          }]
        }
      }
    }
  }

  service = {
    apiVersion = "v1"
    kind       = "Service"
    metadata = {
      name      = local.router.name
      namespace = local.router.namespace
      labels    = local.router_labels
    }
    spec = {
      type     = "ClusterIP"
      selector = local.router_selector
      ports    = [{ name = "http", port = local.router.port, targetPort = "http", protocol = "TCP" }]
    }
  }

  # Only the tunnel connector reaches the router's proxy port: one peer with a pod selector and
  # a namespace selector, so a pod must match both. The admin port is left to the kubelet's
  # probes (which NetworkPolicies do not filter) and, when set, the metrics scraper.
  connector_namespace = coalesce(var.connector_namespace, local.router.namespace)
  connector_peer = {
    podSelector       = { matchLabels = var.connector_pod_labels }
    namespaceSelector = { matchLabels = { "kubernetes.io/metadata.name" = local.connector_namespace } }
  }
  metrics_rule = var.metrics_scraper == null ? [] : [{
    from = [{
      podSelector       = { matchLabels = var.metrics_scraper.pod_labels }
      namespaceSelector = { matchLabels = { "kubernetes.io/metadata.name" = var.metrics_scraper.namespace } }
    }]
    ports = [{ protocol = "TCP", port = local.router.admin_port }]
  }]
  network_policy_name = "${local.router.name}-from-tunnel"
  network_policy = {
    apiVersion = "networking.k8s.io/v1"
    kind       = "NetworkPolicy"
    metadata = {
      name      = local.network_policy_name
      namespace = local.router.namespace
      labels    = local.router_labels
    }
    spec = {
      podSelector = { matchLabels = local.router_selector }
      policyTypes = ["Ingress"]
      ingress = concat([{
        from  = [local.connector_peer]
        ports = [{ protocol = "TCP", port = local.router.port }]
      }], local.metrics_rule)
    }
  }
}

# The same policy as the rendered one, owned by Terraform: drift shows in the plan and the
# apply repairs it. Replacing it (another name or namespace) creates the new one first, so
# the router is never left without a policy.
resource "kamuidash_router_network_policy" "this" {
  count = var.manage_network_policy ? 1 : 0

  namespace                  = local.router.namespace
  name                       = local.network_policy_name
  labels                     = local.router_labels
  router_pod_labels          = local.router_selector
  router_port                = local.router.port
  connector_pod_labels       = var.connector_pod_labels
  connector_namespace_labels = { "kubernetes.io/metadata.name" = local.connector_namespace }
  metrics_scraper = var.metrics_scraper == null ? null : {
    pod_labels       = var.metrics_scraper.pod_labels
    namespace_labels = { "kubernetes.io/metadata.name" = var.metrics_scraper.namespace }
    port             = local.router.admin_port
  }

  lifecycle {
    create_before_destroy = true
  }
}

resource "kamuidash_tunnel" "this" {
  name            = var.tunnel_name
  origin_hostname = var.origin_hostname
  router_service  = local.router_service
  token_rotation  = var.tunnel_token_rotation
}
