# One tenant app: its route record (dynamic: kamuidash_tenant_app; static: the site uploaded to
# the static bucket plus a static route record) and its custom domains.

locals {
  is_dynamic = var.kind == "dynamic"
  is_static  = var.kind == "static"

  # Checked by every resource of the app (preconditions run at plan time), since a variable's
  # own validation cannot look at another variable.
  settings_ok      = (local.is_dynamic && var.dynamic != null && var.static == null) || (local.is_static && var.static != null && var.dynamic == null)
  settings_problem = "kind = \"${var.kind}\" needs exactly the \"${var.kind}\" settings: set ${var.kind} = { … } and leave ${local.is_dynamic ? "static" : "dynamic"} null."

  platform_hostname = "${var.name}.${var.platform_domain}"
}

resource "kamuidash_tenant_app" "this" {
  count = local.is_dynamic ? 1 : 0

  name                = var.name
  routes_namespace_id = var.routes_namespace_id
  origin              = var.dynamic.origin
  namespace           = var.dynamic.namespace
  service             = var.dynamic.service
  port                = var.dynamic.port
  timeout             = var.dynamic.timeout
  status              = var.status

  lifecycle {
    precondition {
      condition     = local.settings_ok
      error_message = local.settings_problem
    }
  }
}

# The site's files, content-addressed under sites/<name>/ in the bucket, one manifest per
# version; the version is computed from the files at plan time, so an edit shows the paths it
# changes and moves the record below once the objects and the manifest are in place.
resource "kamuidash_static_site" "this" {
  count = local.is_static ? 1 : 0

  name            = var.name
  bucket          = var.static.bucket
  source_dir      = var.static.source_dir
  retain_versions = var.static.retain_versions

  lifecycle {
    precondition {
      condition     = local.settings_ok
      error_message = local.settings_problem
    }
    # The pages the record names must be files of the site: the edge does not check them, and
    # a missing one is only a 404 nobody asked for (HCL's conditional evaluates one branch,
    # where || would evaluate both).
    precondition {
      condition     = var.static == null ? true : var.static.not_found == null ? true : try(fileexists("${var.static.source_dir}/${var.static.not_found}"), false)
      error_message = "static.not_found is \"${try(var.static.not_found, "")}\", which is not a file of ${try(var.static.source_dir, "")}: a missing path would get the edge's plain 404 instead of the site's page. Name the site's 404 page relative to source_dir, or leave not_found null."
    }
    precondition {
      condition     = var.static == null ? true : !var.static.spa ? true : try(fileexists("${var.static.source_dir}/${var.static.index}"), false)
      error_message = "static.spa answers every path without a file with the site's index, but ${try(var.static.source_dir, "")} has no \"${try(var.static.index, "")}\": each such path would answer 404. Build the site's index into source_dir, or set static.index to the file the app starts from."
    }
  }
}

locals {
  # The version served: the site's newest, or a kept one to roll back to (a record change only).
  static_version  = local.is_static ? coalesce(var.static.serve_version, kamuidash_static_site.this[0].version) : null
  static_manifest = local.is_static ? "${kamuidash_static_site.this[0].prefix}manifests/${local.static_version}.json" : null
}

resource "kamuidash_route_record" "static" {
  count = local.is_static ? 1 : 0

  app                 = var.name
  routes_namespace_id = var.routes_namespace_id
  status              = var.status
  static = {
    prefix    = kamuidash_static_site.this[0].prefix
    manifest  = local.static_manifest
    index     = var.static.index
    not_found = var.static.not_found
    spa       = var.static.spa
  }

  lifecycle {
    precondition {
      condition     = contains(kamuidash_static_site.this[0].versions, local.static_version)
      error_message = "static.serve_version must be one of the site's kept versions (kamuidash_static_site versions; raise retain_versions to keep more)."
    }
  }
}

resource "kamuidash_custom_domain" "this" {
  for_each = toset(var.custom_domains)

  hostname             = each.key
  app                  = var.name
  domains_namespace_id = var.domains_namespace_id

  timeouts = var.custom_domain_timeout == null ? null : {
    create = var.custom_domain_timeout
  }

  # The mapping names the app by its record's key: publish the record first.
  depends_on = [kamuidash_tenant_app.this, kamuidash_route_record.static]

  lifecycle {
    precondition {
      condition     = var.domains_namespace_id != null
      error_message = "custom_domains needs domains_namespace_id (modules/edge domains_namespace_id)."
    }
    # The reference also orders the domain after the fallback origin: modules/edge's output
    # is known only once apply has waited for it to be active.
    precondition {
      condition     = var.fallback_origin_id != null
      error_message = "custom_domains needs fallback_origin_id (modules/edge fallback_origin_id): the zone's custom hostnames are served only once its fallback origin is active."
    }
    precondition {
      condition     = each.key != var.platform_domain && !endswith(each.key, ".${var.platform_domain}")
      error_message = "The custom domain ${each.key} is under the platform domain ${var.platform_domain}: platform hosts route by their own name and need no custom domain."
    }
  }
}
