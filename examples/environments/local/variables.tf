variable "backend_port" {
  description = "The loopback port of the demo's tenant backend (the router maps tenant-shop/web:<port> to 127.0.0.1:<port>)."
  type        = number
}

variable "signing_secret" {
  description = "The secret that signs the Worker's context for the router (at least 32 bytes)."
  type        = string
  sensitive   = true
}

variable "cache_marker" {
  description = "The private marker of this deployment's content-cache entries (at least 16 bytes)."
  type        = string
  sensitive   = true
}

variable "edge_url" {
  description = "The local edge's URL (KAMUIDASH_EDGE_URL, passed as TF_VAR_edge_url): the smoke checks send their requests there with the public host in the Host header. Empty means https://<host>."
  type        = string
  default     = ""
}

variable "router_image" {
  description = "The router image for the rendered manifests, pinned by digest (the local edge runs the router from source and ignores it)."
  type        = string
  default     = "registry.kamuidash.internal/kamuidash/router@sha256:0000000000000000000000000000000000000000000000000000000000000000"
}
