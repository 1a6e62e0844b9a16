# The Worker is gone from the configuration: the CLI deletes it.
module "env" {
  source = "./testdata/TestAccGuard_EdgeWorker/modules/env_without_worker"

  docs_release = "v3"
}
