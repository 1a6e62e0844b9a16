# Import an existing router NetworkPolicy by <namespace>/<name>.
terraform import kamuidash_router_network_policy.router kamuidash-system/kamuidash-router-from-tunnel
