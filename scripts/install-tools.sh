#!/usr/bin/env bash
# Builds the CLIs the tests drive (Terraform, OpenTofu) from the Go module proxy into a cache
# directory, skipping whatever is already there. Prints the directory holding the binaries last,
# so callers can do: PATH="$(scripts/install-tools.sh):$PATH".
#
# Why build instead of download: the only reachable sources are the Go module proxy, Debian and
# npm, so release archives are out of reach; both CLIs build from their module sources.
set -euo pipefail

TERRAFORM_VERSION="${TERRAFORM_VERSION:-1.8.5}"
OPENTOFU_VERSION="${OPENTOFU_VERSION:-1.9.4}"
# OpenTofu's go.mod replaces hcl/v2 with its fork; a replace in a dependency is ignored, so the
# wrapper module must repeat it (copied from opentofu v1.9.4's go.mod).
OPENTOFU_HCL_REPLACE="github.com/hashicorp/hcl/v2@v2.20.1=github.com/opentofu/hcl/v2@v2.0.0-20240814143621-8048794c5c52"

TOOLS_DIR="${KAMUIDASH_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kamuidash/tools}"
BIN="$TOOLS_DIR/bin"
mkdir -p "$BIN"

log() { echo "install-tools: $*" >&2; }

# Each tool is stamped with its version so a bump rebuilds instead of silently reusing.
have() { [ -x "$BIN/$1" ] && [ "$(cat "$BIN/.$1.version" 2>/dev/null)" = "$2" ]; }

# Both builds mostly wait on module downloads, so on a fresh machine they run side by side.
build_all() {
  build_terraform &
  local tf=$!
  build_tofu
  wait "$tf"
}

build_terraform() {
  have terraform "$TERRAFORM_VERSION" && return
  log "building terraform v$TERRAFORM_VERSION from the Go module proxy (a few minutes)…"
  local start=$SECONDS
  # version.dev=no: report "1.8.5", not "1.8.5-dev", as a release build does.
  GOBIN="$BIN" GOFLAGS=-buildvcs=false go install -trimpath \
    -ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no" \
    "github.com/hashicorp/terraform@v$TERRAFORM_VERSION" >&2
  echo "$TERRAFORM_VERSION" >"$BIN/.terraform.version"
  log "terraform v$TERRAFORM_VERSION built in $((SECONDS - start))s"
}

build_tofu() {
  have tofu "$OPENTOFU_VERSION" && return
  log "building tofu v$OPENTOFU_VERSION from the Go module proxy (a few minutes)…"
  local start=$SECONDS
  # A subshell, so the wrapper module's clean-up trap cannot outlive this build.
  (
    wrap=$(mktemp -d)
    trap 'rm -rf "$wrap"' EXIT
    cd "$wrap"
    go mod init kamuidash.local/tofu-wrapper >/dev/null 2>&1
    go mod edit -replace="$OPENTOFU_HCL_REPLACE"
    GOFLAGS=-mod=mod go get "github.com/opentofu/opentofu/cmd/tofu@v$OPENTOFU_VERSION" >&2
    GOFLAGS="-mod=mod -buildvcs=false" go build -trimpath \
      -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
      -o "$BIN/tofu" github.com/opentofu/opentofu/cmd/tofu >&2
  )
  echo "$OPENTOFU_VERSION" >"$BIN/.tofu.version"
  log "tofu v$OPENTOFU_VERSION built in $((SECONDS - start))s"
}

case "${1:-all}" in
  terraform) build_terraform ;;
  tofu) build_tofu ;;
  all) build_all ;;
  *) echo "usage: $0 [all|terraform|tofu]" >&2; exit 2 ;;
esac
echo "$BIN"
