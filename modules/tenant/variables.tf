variable "name" {
  description = "The app's name, a DNS label: the app is served at `<name>.<platform_domain>` and its route record's key is this name. Changing it replaces the app."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.name))
    error_message = "The app name must be a DNS label: 1 to 63 lower-case letters, digits and hyphens, neither starting nor ending with a hyphen."
  }

  validation {
    condition     = !contains(["apex", "www", "api", "internal", "kamui-internal"], var.name)
    error_message = "The names apex, www, api, internal and kamui-internal are reserved by the platform."
  }
}

variable "kind" {
  description = "How the edge delivers the app: `dynamic` (forwarded through the tunnel to the router and the app's service; set `dynamic`) or `static` (files served from the static bucket; set `static`)."
  type        = string

  validation {
    condition     = contains(["dynamic", "static"], var.kind)
    error_message = "The kind must be \"dynamic\" or \"static\"."
  }
}

variable "dynamic" {
  description = <<-EOT
    The placement of a `dynamic` app; must be null for a `static` one.
    `origin` is the tunnel's origin hostname (modules/cluster-ingress `origin_hostname`);
    `namespace`, `service` and `port` name the Kubernetes service the router forwards to
    (the namespace must carry the router's tenant prefix, `tenant-` by default, which the
    provider's `tenant_namespace_prefix` checks at plan);
    `timeout` is how long the edge waits for response headers, a Go duration between 100ms and 90s
    (such as `30s`, `1.5s`, `500ms`), checked by the provider.
  EOT
  type = object({
    origin    = string
    namespace = string
    service   = string
    port      = number
    timeout   = optional(string, "30s")
  })
  default = null

  validation {
    condition = var.dynamic == null || try(
      can(regex("^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.dynamic.origin)) &&
      can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.dynamic.namespace)) &&
      can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.dynamic.service)),
      false
    )
    error_message = "dynamic.origin must be a lower-case hostname without trailing dot, and dynamic.namespace and dynamic.service DNS labels."
  }

  validation {
    condition     = var.dynamic == null || try(var.dynamic.port >= 1 && var.dynamic.port <= 65535 && floor(var.dynamic.port) == var.dynamic.port, false)
    error_message = "dynamic.port must be a whole number between 1 and 65535."
  }
}

variable "static" {
  description = <<-EOT
    The site of a `static` app; must be null for a `dynamic` one.
    `bucket` is the edge's static bucket (modules/edge `static_bucket`); `source_dir` the
    directory holding the built site, uploaded content-addressed (an edit uploads only what
    changed); `index` the object served for a directory path; `not_found` the object served
    with 404 for a missing path (null: a fixed 404); `spa` serves `index` with 200 for paths
    that have no object, for client-side routers; `retain_versions` how many versions are kept
    for a rollback; `serve_version` rolls back to one of them (null: the newest).
  EOT
  type = object({
    bucket          = string
    source_dir      = string
    index           = optional(string, "index.html")
    not_found       = optional(string)
    spa             = optional(bool, false)
    retain_versions = optional(number, 3)
    serve_version   = optional(string)
  })
  default = null

  validation {
    condition     = var.static == null || try(can(regex("^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$", var.static.bucket)), false)
    error_message = "static.bucket must be an R2 bucket name: 3 to 63 lower-case letters, digits and hyphens."
  }

  validation {
    condition     = var.static == null || try(var.static.source_dir != "", false)
    error_message = "static.source_dir must name the directory holding the built site."
  }

  validation {
    condition = var.static == null || try(
      !startswith(var.static.index, "/") && !startswith(coalesce(var.static.not_found, "404.html"), "/"),
      false
    )
    error_message = "static.index and static.not_found are object names relative to the site's root, without a leading slash."
  }
}

variable "status" {
  description = "`active` routes the app; `provisioning` and `disabled` make the edge answer 503 (and the app's smoke checks then expect 503)."
  type        = string
  default     = "active"
  nullable    = false

  validation {
    condition     = contains(["active", "provisioning", "disabled"], var.status)
    error_message = "The status must be \"active\", \"provisioning\" or \"disabled\"."
  }
}

variable "routes_namespace_id" {
  description = "The ID of the `ROUTES` KV namespace the edge Worker reads (modules/edge `routes_namespace_id`)."
  type        = string
}

variable "platform_domain" {
  description = "The platform domain (modules/edge `platform_domain`): the app is served at `<name>.<platform_domain>`."
  type        = string

  validation {
    condition     = can(regex("^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.platform_domain))
    error_message = "The platform domain must be a lower-case DNS name without trailing dot."
  }
}

variable "custom_domains" {
  description = "The tenant's own hostnames that route to this app (for example `www.shop.example`): lower-case, without trailing dot, outside the platform domain. Each becomes a Cloudflare for SaaS custom hostname; apply waits until the tenant has published its TXT records and the hostname is active."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition = alltrue([
      for h in var.custom_domains :
      length(h) <= 253 && can(regex("^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", h))
    ])
    error_message = "Each custom domain must be a lower-case hostname of at least two labels, without trailing dot, port or wildcard."
  }

  validation {
    condition     = length(distinct(var.custom_domains)) == length(var.custom_domains)
    error_message = "Each custom domain may be listed only once."
  }
}

variable "domains_namespace_id" {
  description = "The ID of the `DOMAINS` KV namespace (modules/edge `domains_namespace_id`); required when `custom_domains` is not empty."
  type        = string
  default     = null
}

variable "fallback_origin_id" {
  description = "The zone whose Cloudflare for SaaS fallback origin is active (modules/edge `fallback_origin_id`); required when `custom_domains` is not empty. The custom domains wait for it: Cloudflare serves no custom hostname until the zone's fallback origin is active."
  type        = string
  default     = null
}

variable "custom_domain_timeout" {
  description = "How long apply waits for a new custom hostname to become active (the tenant publishes its TXT records meanwhile), such as `30m`. Null means the provider's default."
  type        = string
  default     = null

  validation {
    condition     = var.custom_domain_timeout == null || try(can(regex("^([0-9]+h)?([0-9]+m)?([0-9]+s)?$", var.custom_domain_timeout)) && var.custom_domain_timeout != "", false)
    error_message = "The custom domain timeout must be a duration such as \"30m\" or \"1h\"."
  }
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

variable "smoke_path" {
  description = "The path the smoke checks request on every host of the app."
  type        = string
  default     = "/"
  nullable    = false

  validation {
    condition     = startswith(var.smoke_path, "/") && !strcontains(var.smoke_path, " ")
    error_message = "The smoke path must start with \"/\" and hold no spaces."
  }
}

variable "smoke_expect_headers" {
  description = "Header name → a substring its value must contain, for every smoke check of the app. Null means: none for a dynamic app (its headers are the app's own), `Cache-Control` containing `must-revalidate` for a static app (what the edge sets on static answers)."
  type        = map(string)
  default     = null
}
