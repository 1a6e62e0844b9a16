# The inputs that come from outside the repository: secrets from a secret store, and what
# differs between the machines that plan (TF_VAR_<name>). ../shared/variables.tf says what
# each one does.

variable "signing_secret" {
  description = "The secret that signs the Worker's context for the router (at least 32 bytes), as TF_VAR_signing_secret."
  type        = string
  sensitive   = true
}

variable "cache_marker" {
  description = "The private marker of the content-cache entries (at least 16 bytes), as TF_VAR_cache_marker."
  type        = string
  sensitive   = true
}

variable "edge_url" {
  description = "Where the smoke checks send their requests; empty means https://<host>."
  type        = string
  default     = ""
}

variable "router_image_repository" {
  description = "The OCI repository the router image is pushed to."
  type        = string
}

variable "router_accept_next_signing_secret" {
  description = "True while the signing secret rotates (modules/cluster-ingress/README.md)."
  type        = bool
  default     = false
}

variable "backend_port" {
  description = "The port of the shop's service; against a local edge, the loopback port of a test backend."
  type        = number
  default     = 8080
}
