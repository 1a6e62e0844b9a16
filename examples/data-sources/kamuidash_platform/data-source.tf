data "kamuidash_platform" "current" {}

output "edge_api" {
  value = "${data.kamuidash_platform.current.api_base_url} (account ${data.kamuidash_platform.current.account_id})"
}
