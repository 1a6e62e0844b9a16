# Credentials come from the environment (CLOUDFLARE_API_TOKEN, KAMUIDASH_ACCOUNT_ID, …); a local
# edge writes them to <state-dir>/env, so `. <state-dir>/env` is all a local run needs.
provider "kamuidash" {
  platform_domain = "kamui.app"
  environment     = "dev"
  # The router's --namespace-prefix (modules/cluster-ingress router.tenant_namespace_prefix): a
  # plan that points an app at a namespace outside it fails instead of every request for the app.
  tenant_namespace_prefix = "tenant-"
}
