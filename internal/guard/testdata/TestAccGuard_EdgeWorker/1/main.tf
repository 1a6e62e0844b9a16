# Bootstrap: the first apply creates everything, the Worker included.
module "env" {
  source = "./testdata/TestAccGuard_EdgeWorker/modules/env"

  worker_name     = "kamuidash-guard-a"
  log_sample_rate = 0.01
  docs_release    = "v1"
}
