# A Worker-only, in-place update: a new log sample rate.
module "env" {
  source = "./testdata/TestAccGuard_EdgeWorker/modules/env"

  worker_name     = "kamuidash-guard-a"
  log_sample_rate = 0.5
  docs_release    = "v1"
}
