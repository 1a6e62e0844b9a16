# A new Worker name: the CLI replaces the Worker.
module "env" {
  source = "./testdata/TestAccGuard_EdgeWorker/modules/env"

  worker_name     = "kamuidash-guard-b"
  log_sample_rate = 0.25
  docs_release    = "v3"
}
