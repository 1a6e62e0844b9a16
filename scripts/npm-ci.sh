#!/usr/bin/env bash
# Installs the npm packages (Miniflare/workerd, Prism) exactly as package-lock.json pins them,
# and only when the lockfile changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.kamuidash-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "npm packages up to date"
  exit 0
fi
# No update notice: it names a download site and says nothing about this install.
npm ci --no-audit --no-fund --no-update-notifier
echo "$want" >"$stamp"
