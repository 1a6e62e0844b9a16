# Credentials come from the environment (CLOUDFLARE_API_TOKEN, KAMUIDASH_ACCOUNT_ID, …); a local
# edge writes them to <state-dir>/env, so `. <state-dir>/env` is all a local run needs.
provider "kamuidash" {
  platform_domain = "kamui.app"
  environment     = "dev"
}
