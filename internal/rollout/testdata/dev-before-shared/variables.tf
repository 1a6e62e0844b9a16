variable "environment" {
  description = "The environment's name, a DNS label: it names the Worker (kamuidash-edge-<env>), the KV namespaces, the static bucket and the tunnel."
  type        = string
}

variable "signing_secret" {
  description = "The secret that signs the Worker's context for the router (at least 32 bytes); the router's Kubernetes Secret holds the same value. Pass it as TF_VAR_signing_secret from a secret store."
  type        = string
  sensitive   = true
}

variable "cache_marker" {
  description = "The private marker of this deployment's content-cache entries (at least 16 bytes). Pass it as TF_VAR_cache_marker from a secret store."
  type        = string
  sensitive   = true
}

variable "edge_url" {
  description = "Where the smoke checks send their requests: empty means https://<host>; a local edge's KAMUIDASH_EDGE_URL (TF_VAR_edge_url) sends them there with the public host in the Host header."
  type        = string
  default     = ""
}

variable "freshness_budget" {
  description = "The worst-case time from a routing change to every edge serving it (45s to 1h)."
  type        = string
}

variable "log_sample_rate" {
  description = "The fraction of successful requests the Worker logs (errors are always logged)."
  type        = number
}

variable "upstream_timeout" {
  description = "The ceiling on any app's upstream timeout (100ms to 90s)."
  type        = string
}

variable "origin_label" {
  description = "The first label of the tunnel's origin hostname, `<origin_label>.<platform_domain>`."
  type        = string
  default     = "origin"
}

variable "router_image_repository" {
  description = "The OCI repository the router image is pushed to, for example `registry.example.com/platform/kamuidash-router`; the Deployment runs it by digest. Set it per machine (TF_VAR_router_image_repository), not in terraform.tfvars, when environments push to different registries; against a local edge it is `$KAMUIDASH_LOCAL_REGISTRY/kamuidash/router`."
  type        = string
}

variable "router_replicas" {
  description = "How many router pods the rendered Deployment runs."
  type        = number
  default     = 2
}

variable "router_accept_next_signing_secret" {
  description = "True while the signing secret rotates: the router also verifies under the key `signing-secret-next` of its Kubernetes Secret (see modules/cluster-ingress/README.md)."
  type        = bool
  default     = false
}

variable "backend_port" {
  description = "The port of the shop's service (tenant-shop/web). Against a local edge started with --router-upstream-template '127.0.0.1:{port}', the loopback port of a test backend."
  type        = number
  default     = 8080
}

variable "shop_timeout" {
  description = "How long the edge waits for the shop's response headers."
  type        = string
  default     = "30s"
}

variable "shop_custom_domains" {
  description = "The shop tenant's own hostnames. Apply waits until each is active, which needs the tenant's TXT records (a local edge activates them with --auto-validate)."
  type        = list(string)
  default     = []
}
