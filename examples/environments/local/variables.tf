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
