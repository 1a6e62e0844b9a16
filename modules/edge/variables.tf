variable "environment" {
  description = "The environment's name (for example `dev` or `prod`), a DNS label. It names the defaults of every resource of the module, so two environments on one account never collide."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.environment))
    error_message = "The environment must be a DNS label: 1 to 63 lower-case letters, digits and hyphens, neither starting nor ending with a hyphen."
  }
}

variable "worker_name" {
  description = "The edge Worker's script name. Null means `kamuidash-edge-<environment>`. Changing it replaces the Worker, which the rollout guard refuses: choose it once."
  type        = string
  default     = null

  validation {
    condition     = var.worker_name == null || can(regex("^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$", var.worker_name))
    error_message = "The worker name must be 1 to 63 lower-case letters, digits, hyphens and underscores, starting and ending with a letter or digit."
  }
}

variable "routes_namespace_title" {
  description = "The title of the `ROUTES` KV namespace (app → route record). Null means `kamuidash-<environment>-routes`."
  type        = string
  default     = null

  validation {
    condition     = var.routes_namespace_title == null || can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]{0,511}$", var.routes_namespace_title))
    error_message = "The namespace title must start with a letter or digit and hold only letters, digits, '_', '.' and '-'."
  }
}

variable "domains_namespace_title" {
  description = "The title of the `DOMAINS` KV namespace (custom hostname → app). Null means `kamuidash-<environment>-domains`."
  type        = string
  default     = null

  validation {
    condition     = var.domains_namespace_title == null || can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]{0,511}$", var.domains_namespace_title))
    error_message = "The namespace title must start with a letter or digit and hold only letters, digits, '_', '.' and '-'."
  }
}

variable "routes_namespace_id" {
  description = "An existing `ROUTES` KV namespace to use instead of the module's own, such as the target of a route-data migration once it is the only one (see [migrating the route data](README.md#migrating-the-route-data-to-a-new-namespace)). Null means the module creates and owns `kamuidash-<environment>-routes`; setting it on an environment that has the module's own namespace deletes that namespace."
  type        = string
  default     = null

  validation {
    condition     = var.routes_namespace_id == null || can(regex("^[0-9a-f]{32}$", var.routes_namespace_id))
    error_message = "The namespace id must be a 32-character lower-case hexadecimal Cloudflare ID."
  }
}

variable "domains_namespace_id" {
  description = "An existing `DOMAINS` KV namespace to use instead of the module's own (see `routes_namespace_id`). Null means the module creates and owns `kamuidash-<environment>-domains`."
  type        = string
  default     = null

  validation {
    condition     = var.domains_namespace_id == null || can(regex("^[0-9a-f]{32}$", var.domains_namespace_id))
    error_message = "The namespace id must be a 32-character lower-case hexadecimal Cloudflare ID."
  }
}

variable "worker_routes_namespace_id" {
  description = "The `ROUTES` namespace the Worker reads, when it must differ from `routes_namespace_id` (the tenants' namespace): the binding switch of a route-data migration, a Worker-only plan. Null means the Worker reads `routes_namespace_id`."
  type        = string
  default     = null

  validation {
    condition     = var.worker_routes_namespace_id == null || can(regex("^[0-9a-f]{32}$", var.worker_routes_namespace_id))
    error_message = "The namespace id must be a 32-character lower-case hexadecimal Cloudflare ID."
  }
}

variable "worker_domains_namespace_id" {
  description = "The `DOMAINS` namespace the Worker reads, when it must differ from `domains_namespace_id` (see `worker_routes_namespace_id`). Null means the Worker reads `domains_namespace_id`."
  type        = string
  default     = null

  validation {
    condition     = var.worker_domains_namespace_id == null || can(regex("^[0-9a-f]{32}$", var.worker_domains_namespace_id))
    error_message = "The namespace id must be a 32-character lower-case hexadecimal Cloudflare ID."
  }
}

variable "static_bucket" {
  description = "The R2 bucket static sites are served from (bound to the Worker as `STATIC`). Null means `kamuidash-<environment>-static`."
  type        = string
  default     = null

  validation {
    condition     = var.static_bucket == null || can(regex("^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$", var.static_bucket))
    error_message = "The bucket name must be 3 to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit."
  }
}

variable "freshness_budget" {
  description = "The worst-case time from a routing change to every edge serving it, a duration in whole seconds between 45s and 1h (for example `45s`, `2m0s`). The Worker derives its KV, route-cache and negative-cache TTLs from it."
  type        = string
  default     = "2m0s"

  # try: && does not short-circuit, so the sums are evaluated for a spelling the regex refuses
  # too, and their regex() call would fail the validation with its own error instead of this
  # message.
  validation {
    condition = var.freshness_budget != "" && try(
      sum([for i, n in regex("^(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$", var.freshness_budget) : tonumber(coalesce(n, "0")) * [3600, 60, 1][i]]) >= 45 &&
      sum([for i, n in regex("^(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$", var.freshness_budget) : tonumber(coalesce(n, "0")) * [3600, 60, 1][i]]) <= 3600,
      false
    )
    error_message = "The freshness budget must be a duration of hours, minutes and whole seconds (such as \"45s\", \"2m0s\" or \"1h\") between 45s and 1h."
  }
}

variable "signing_secret" {
  description = "The per-environment secret that signs the Worker's resolved context for the router (at least 32 bytes). The router's Kubernetes Secret must hold the same value. Pass it from a secret store (TF_VAR_signing_secret), never a file in the repository."
  type        = string
  sensitive   = true

  validation {
    condition     = length(var.signing_secret) >= 32
    error_message = "The signing secret must be at least 32 bytes long."
  }
}

variable "cache_marker" {
  description = "The private marker this deployment's content-cache entries carry (at least 16 bytes); a cached answer without it is ignored. Pass it from a secret store (TF_VAR_cache_marker)."
  type        = string
  sensitive   = true

  validation {
    condition     = length(var.cache_marker) >= 16
    error_message = "The cache marker must be at least 16 bytes long."
  }
}

variable "routes" {
  description = "The zone route patterns that send requests to the Worker, in any order (the Worker's routes are a set). Null means the platform domain, its subdomains and `*/*`, which catches the tenants' custom hostnames as on a Cloudflare for SaaS zone."
  type        = list(string)
  default     = null

  validation {
    condition     = var.routes == null || alltrue([for r in coalesce(var.routes, []) : can(regex("^(\\*|\\*\\.)?[a-z0-9.-]*/\\S*$", r))])
    error_message = "Each route must be a pattern such as \"*.kamui.app/*\", \"kamui.app/*\" or \"*/*\": a lower-case host (optionally starting with \"*\" or \"*.\"), a slash, then a path without spaces."
  }
}

variable "log_sample_rate" {
  description = "The fraction of successful requests that get a log line, between 0 and 1; errors are always logged."
  type        = number
  default     = 0.01
  nullable    = false

  validation {
    condition     = var.log_sample_rate >= 0 && var.log_sample_rate <= 1
    error_message = "The log sample rate must be between 0 and 1."
  }
}

variable "upstream_timeout" {
  description = "The ceiling on any app's upstream timeout, a Go duration between 100ms and 90s (for example `30s`, `1m30s`, `1.5s`, `500ms`), checked by the provider."
  type        = string
  default     = "1m30s"
}

variable "edge_url" {
  description = "Where the smoke checks send their requests. Empty means each check's own `https://<host>`; a URL (such as a local edge's KAMUIDASH_EDGE_URL) is used as the base of every check, with the public host in the Host header."
  type        = string
  default     = ""
  nullable    = false

  validation {
    condition     = var.edge_url == "" || can(regex("^https?://[^/\\s]+/?$", var.edge_url))
    error_message = "The edge URL must be empty or an http(s) URL with a host and no path, such as \"http://127.0.0.1:8788\"."
  }
}

variable "unknown_host_label" {
  description = "The label of the platform host the unknown-host smoke check requests (`<label>.<platform_domain>`). It must never be an app's name."
  type        = string
  default     = "kamuidash-smoke-unknown"

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.unknown_host_label))
    error_message = "The unknown-host label must be a DNS label."
  }
}

variable "manage_fallback_origin" {
  description = "Whether the module manages the zone's Cloudflare for SaaS fallback origin (`kamuidash_fallback_origin`: a proxied placeholder record and the fallback origin on it; apply waits until it is active). Set false for a zone whose fallback origin is managed elsewhere: a zone has one, and custom hostnames are served only while it is active."
  type        = bool
  default     = true
  nullable    = false
}

variable "fallback_origin_hostname" {
  description = "The fallback origin's hostname, under the platform domain. Null means `fallback.<platform_domain>`. Changing it moves the fallback origin in place."
  type        = string
  default     = null

  validation {
    condition     = var.fallback_origin_hostname == null || can(regex("^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.fallback_origin_hostname))
    error_message = "The fallback origin hostname must be a lower-case hostname without trailing dot."
  }
}

variable "fallback_origin_timeout" {
  description = "How long apply waits for the fallback origin to become active, such as `20m`. Null means the provider's default."
  type        = string
  default     = null

  validation {
    condition     = var.fallback_origin_timeout == null || try(can(regex("^([0-9]+h)?([0-9]+m)?([0-9]+s)?$", var.fallback_origin_timeout)) && var.fallback_origin_timeout != "", false)
    error_message = "The fallback origin timeout must be a duration such as \"20m\" or \"1h\"."
  }
}
