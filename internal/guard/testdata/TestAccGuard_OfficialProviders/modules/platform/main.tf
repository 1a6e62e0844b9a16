variable "contents" {
  type = map(string)
}

variable "with_script" {
  type = bool
}

resource "cloudflare_workers_script" "edge" {
  count   = var.with_script ? 1 : 0
  content = var.contents.script
}

# Reads the script's revision, which is unknown while the script changes: the CLI plans a read
# of this data source, which the guard must leave out.
data "cloudflare_workers_script" "deployed" {
  count   = var.with_script ? 1 : 0
  content = cloudflare_workers_script.edge[0].revision
}

resource "cloudflare_workers_route" "edge" {
  content = var.contents.route
}

resource "cloudflare_workers_kv_namespace" "routes" {
  content = var.contents.kv_namespace
}

resource "cloudflare_workers_kv" "docs" {
  content = var.contents.kv
}

resource "cloudflare_dns_record" "origin" {
  content = var.contents.dns
}

resource "cloudflare_zero_trust_tunnel_cloudflared" "cluster" {
  content = var.contents.tunnel
}

resource "cloudflare_r2_bucket" "static" {
  content = var.contents.r2
}

# A type the guard does not know: class other.
resource "terraform_data" "note" {
  input = var.contents.note
}

module "cluster" {
  source = "../cluster"

  policy = var.contents.policy
}
