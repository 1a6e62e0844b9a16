# A platform built with the official Cloudflare and Kubernetes providers (stand-ins in this
# test), one and two module levels below the root. Each step sets the contents it changes.

variable "contents" {
  type = map(string)
}

variable "with_script" {
  type = bool
}

module "platform" {
  source = "./testdata/TestAccGuard_OfficialProviders/modules/platform"

  contents    = var.contents
  with_script = var.with_script
}
