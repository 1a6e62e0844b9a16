# A route record change alone.
module "env" {
  source = "./testdata/TestAccGuard_EdgeWorker/modules/env"

  worker_name     = "kamuidash-guard-a"
  log_sample_rate = 0.25
  docs_release    = "v3"
}
