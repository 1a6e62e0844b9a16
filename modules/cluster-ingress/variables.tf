variable "tunnel_name" {
  description = "The tunnel's name, unique in the account (for example `kamuidash-dev`). Changing it renames the tunnel in place: the connector's token stays."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$", var.tunnel_name))
    error_message = "The tunnel name must be 1 to 63 letters, digits, '_', '.' and '-', starting with a letter or digit."
  }
}

variable "tunnel_token_rotation" {
  description = "Any value (a date, say). Changing it from one value to another gives the tunnel a new secret, so a new `token` output: roll the connectors out with it, since the old token no longer connects. Setting it for the first time or removing it rotates nothing."
  type        = string
  default     = null
}

variable "origin_hostname" {
  description = "The hostname the edge Worker forwards dynamic requests to (the `origin` of dynamic tenant apps), in the platform's zone, for example `origin.dev.kamui.app`. The tunnel routes it to the router."
  type        = string

  validation {
    condition     = length(var.origin_hostname) <= 253 && can(regex("^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.origin_hostname))
    error_message = "The origin hostname must be a lower-case hostname of at least two labels, without trailing dot."
  }
}

variable "router" {
  description = <<-EOT
    The router as the cluster runs it. `name`, `namespace` and `port` make its Service's
    in-cluster URL, which the tunnel's ingress points at; `image` is the router image,
    pinned by digest (`<repository>@sha256:<digest>`), needed only when
    `router_image_repository` is unset (then this module builds and pushes it); `admin_port`
    serves /healthz, /readyz and /metrics; `tenant_namespace_prefix` is the prefix every
    upstream namespace must start with; `signing_secret_name` names the Kubernetes Secret
    (key `signing-secret`) that holds the same context signing secret as the edge Worker's.
    `accept_next_signing_secret` (default false) is for rotating that secret: when true, the
    router also reads the key `signing-secret-next` of the same Secret, and contexts signed
    with either key verify (see the module README for the three steps). The Secret must have
    that key before the Deployment is applied with it on.
  EOT
  type = object({
    image                   = optional(string)
    name                    = optional(string, "kamuidash-router")
    namespace               = optional(string, "kamuidash-system")
    port                    = optional(number, 8080)
    admin_port              = optional(number, 9090)
    replicas                = optional(number, 2)
    tenant_namespace_prefix = optional(string, "tenant-")
    signing_secret_name     = optional(string, "kamuidash-router-signing")
    # Rotation of the signing secret: also verify under the Secret's signing-secret-next.
    accept_next_signing_secret = optional(bool, false)
  })

  validation {
    condition     = var.router.image == null || can(regex("^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$", var.router.image))
    error_message = "router.image must be pinned by digest: <repository>@sha256:<64 hex digits>."
  }

  validation {
    condition = alltrue([
      for v in [var.router.name, var.router.namespace, var.router.signing_secret_name] :
      can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", v))
    ])
    error_message = "router.name, router.namespace and router.signing_secret_name must be DNS labels."
  }

  validation {
    condition = alltrue([
      for p in [var.router.port, var.router.admin_port] : p >= 1 && p <= 65535 && floor(p) == p
    ]) && var.router.port != var.router.admin_port
    error_message = "router.port and router.admin_port must be two different whole numbers between 1 and 65535."
  }

  validation {
    condition     = var.router.replicas >= 1 && floor(var.router.replicas) == var.router.replicas
    error_message = "router.replicas must be a whole number of at least 1."
  }

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]*$", var.router.tenant_namespace_prefix))
    error_message = "router.tenant_namespace_prefix must be the start of a namespace name (lower-case letters, digits, hyphens), such as \"tenant-\"."
  }
}

variable "connector_pod_labels" {
  description = "The labels of the tunnel-connector (cloudflared) pods: the router's NetworkPolicy admits only pods matching all of them to the router's port."
  type        = map(string)
  default = {
    "app.kubernetes.io/name" = "cloudflared"
  }
  nullable = false

  validation {
    condition     = length(var.connector_pod_labels) > 0
    error_message = "connector_pod_labels must not be empty: an empty selector would admit every pod."
  }
}

variable "connector_namespace" {
  description = "The namespace the tunnel-connector pods run in. Null means the router's own namespace."
  type        = string
  default     = null

  validation {
    condition     = var.connector_namespace == null || can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.connector_namespace))
    error_message = "connector_namespace must be a DNS label."
  }
}

variable "router_image_repository" {
  description = "The OCI repository the router image is pushed to (for example `registry.example.com/platform/kamuidash-router`; a local edge's is `$KAMUIDASH_LOCAL_REGISTRY/kamuidash/router`). When set, this module builds the router from the provider's embedded sources for linux/amd64 and linux/arm64, pushes the multi-arch image (credentials from the Docker config) and runs it by digest; `router.image` is then ignored. Null: `router.image` names an image pushed elsewhere."
  type        = string
  default     = null
}

variable "manage_network_policy" {
  description = "Whether Terraform owns the router's NetworkPolicy (`kamuidash_router_network_policy`, which needs the provider's kubernetes block or KUBECONFIG). False leaves it in `router_manifests` for the cluster's tooling."
  type        = bool
  default     = true
  nullable    = false
}

variable "metrics_scraper" {
  description = "A metrics scraper admitted to the router's admin port only: its pods' labels and its namespace. Null admits none (the kubelet's probes need no rule)."
  type = object({
    pod_labels = map(string)
    namespace  = string
  })
  default = null

  validation {
    condition     = var.metrics_scraper == null || try(length(var.metrics_scraper.pod_labels) > 0, false)
    error_message = "metrics_scraper.pod_labels must not be empty: an empty selector would admit every pod of the namespace."
  }

  # The namespace is matched by its kubernetes.io/metadata.name label: a value that is no
  # namespace name is still a valid label value, and the rule would admit nobody.
  validation {
    condition     = var.metrics_scraper == null || try(can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.metrics_scraper.namespace)), false)
    error_message = "metrics_scraper.namespace must be a DNS label: the name of the namespace the scraper runs in."
  }
}
