# prod: the same configuration as dev with production values. A longer freshness budget means
# fewer KV reads; 1% of successful requests are logged; no app may hold the edge for more
# than 30s.
environment      = "prod"
freshness_budget = "2m0s"
log_sample_rate  = 0.01
upstream_timeout = "30s"

shop_timeout = "15s"

router_replicas = 3
