data "kamuidash_route_records" "dev" {
  routes_namespace_id = "0f2ac74b498b48028cb68387c421e279"
}

# Apps whose records were written by something other than this configuration.
output "unmanaged_apps" {
  value = [for r in data.kamuidash_route_records.dev.records : r.app if r.owner == null]
}
