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

variable "router_image_repository" {
  description = "Where the router image is pushed: the local edge's registry, `$KAMUIDASH_LOCAL_REGISTRY/kamuidash/router` (the demo sets it). The local edge runs the router from source; the image is what a cluster would run."
  type        = string
}
