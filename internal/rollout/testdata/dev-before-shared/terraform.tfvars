# dev: fast feedback. Changes show quickly, every request is logged, slow apps time out late.
environment      = "dev"
freshness_budget = "45s"
log_sample_rate  = 1
upstream_timeout = "1m30s"

shop_timeout = "30s"

router_replicas = 1
