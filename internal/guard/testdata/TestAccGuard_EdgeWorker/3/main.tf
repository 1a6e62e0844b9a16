# A Worker update mixed with a route record change.
module "env" {
  source = "./testdata/TestAccGuard_EdgeWorker/modules/env"

  worker_name     = "kamuidash-guard-a"
  log_sample_rate = 0.25
  docs_release    = "v2"
}
