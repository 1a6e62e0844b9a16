#!/usr/bin/env bash
# Builds the CLIs the tests drive (Terraform, OpenTofu) and the Kubernetes API server the
# cluster-side tests start (kube-apiserver) from the Go module proxy into a cache directory, and
# links Debian's etcd next to them, skipping whatever is already there. Prints the directory
# holding the binaries last, so callers can do: PATH="$(scripts/install-tools.sh):$PATH", and
# KUBEBUILDER_ASSETS="$(scripts/install-tools.sh kube)" for internal/kubetest.
#
# Why build instead of download: the only reachable sources are the Go module proxy, Debian and
# npm, so release archives are out of reach; the CLIs and kube-apiserver build from their module
# sources, etcd comes from Debian.
set -euo pipefail

TERRAFORM_VERSION="${TERRAFORM_VERSION:-1.8.5}"
OPENTOFU_VERSION="${OPENTOFU_VERSION:-1.9.4}"
# OpenTofu's go.mod replaces hcl/v2 with its fork; a replace in a dependency is ignored, so the
# wrapper module must repeat it (copied from opentofu v1.9.4's go.mod).
OPENTOFU_HCL_REPLACE="github.com/hashicorp/hcl/v2@v2.20.1=github.com/opentofu/hcl/v2@v2.0.0-20240814143621-8048794c5c52"
# kube-apiserver v1.X.Y; kubernetes' staging modules (k8s.io/api, client-go, …) are published as
# v0.X.Y.
KUBE_VERSION="${KUBE_VERSION:-1.34.4}"

TOOLS_DIR="${KAMUIDASH_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kamuidash/tools}"
BIN="$TOOLS_DIR/bin"
mkdir -p "$BIN"

log() { echo "install-tools: $*" >&2; }

# Each build's own output (hundreds of "go: downloading" lines on a fresh machine) goes to a log
# file of its own; the terminal gets one line when a build starts and one when it ends, and, when
# it fails, where its log is and the log's last lines.
LOGS="$TOOLS_DIR/logs"
mkdir -p "$LOGS"
# logged <name> <command...>: runs the command with its output appended to $LOGS/<name>.log.
logged() {
  local name=$1
  shift
  if ! "$@" >>"$LOGS/$name.log" 2>&1; then
    log "building $name failed; its output is in $LOGS/$name.log, ending with:"
    tail -n 15 "$LOGS/$name.log" >&2
    return 1
  fi
}

# Each tool is stamped with its version so a bump rebuilds instead of silently reusing.
have() { [ -x "$BIN/$1" ] && [ "$(cat "$BIN/.$1.version" 2>/dev/null)" = "$2" ]; }

# The builds mostly wait on module downloads at first, so on a fresh machine they run side by
# side; kube-apiserver is the long one, the CLIs finish inside it. Every job is waited for, and
# any failure fails the run.
run_parallel() {
  local pids=() failed=0 fn pid
  for fn in "$@"; do
    "$fn" &
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
  done
  return "$failed"
}

build_all() { run_parallel build_terraform build_tofu build_kube_apiserver install_etcd; }
build_kube() { run_parallel build_kube_apiserver install_etcd; }

build_terraform() {
  have terraform "$TERRAFORM_VERSION" && return
  log "building terraform v$TERRAFORM_VERSION from the Go module proxy (once, then cached in $BIN; a few minutes)…"
  local start=$SECONDS
  : >"$LOGS/terraform.log"
  # version.dev=no: report "1.8.5", not "1.8.5-dev", as a release build does.
  logged terraform env GOBIN="$BIN" GOFLAGS=-buildvcs=false go install -trimpath \
    -ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no" \
    "github.com/hashicorp/terraform@v$TERRAFORM_VERSION" || return 1
  echo "$TERRAFORM_VERSION" >"$BIN/.terraform.version"
  log "terraform v$TERRAFORM_VERSION built in $((SECONDS - start))s"
}

build_tofu() {
  have tofu "$OPENTOFU_VERSION" && return
  log "building tofu v$OPENTOFU_VERSION from the Go module proxy (once, then cached in $BIN; a few minutes)…"
  local start=$SECONDS
  : >"$LOGS/tofu.log"
  # A subshell, so the wrapper module's clean-up trap cannot outlive this build.
  logged tofu build_tofu_in_wrapper || return 1
  echo "$OPENTOFU_VERSION" >"$BIN/.tofu.version"
  log "tofu v$OPENTOFU_VERSION built in $((SECONDS - start))s"
}

build_tofu_in_wrapper() {
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
}

# kube-apiserver through a wrapper module. kubernetes' go.mod points its staging modules at
# ./staging/src/..., which is not in the module zip, and a dependency's replaces are ignored
# anyway, so the wrapper replaces each of them with its published v0.X.Y, the list read from that
# go.mod. The main is kubernetes' own cmd/kube-apiserver/apiserver.go.
build_kube_apiserver() {
  have kube-apiserver "$KUBE_VERSION" && return
  log "building kube-apiserver v$KUBE_VERSION from the Go module proxy (once, then cached in $BIN; about 10 minutes on two cores)…"
  local start=$SECONDS
  : >"$LOGS/kube-apiserver.log"
  logged kube-apiserver build_kube_apiserver_in_wrapper || return 1
  echo "$KUBE_VERSION" >"$BIN/.kube-apiserver.version"
  log "kube-apiserver v$KUBE_VERSION built in $((SECONDS - start))s"
}

build_kube_apiserver_in_wrapper() {
  (
    wrap=$(mktemp -d)
    trap 'rm -rf "$wrap"' EXIT
    cd "$wrap"
    minor=${KUBE_VERSION#*.}
    minor=${minor%%.*}
    staging_version="v0.${KUBE_VERSION#*.}"
    go mod init kamuidash.local/kube-apiserver-wrapper >/dev/null 2>&1
    kube_mod=$(go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" |
      sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
    [ -s "$kube_mod" ] || { log "no go.mod for k8s.io/kubernetes@v$KUBE_VERSION"; exit 1; }
    go mod edit -require="k8s.io/kubernetes@v$KUBE_VERSION"
    staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$kube_mod")
    [ -n "$staging" ] || { log "no ./staging replaces in $kube_mod"; exit 1; }
    for m in $staging; do
      go mod edit -replace="$m=$m@$staging_version"
    done
    cat >main.go <<'GO'
// kube-apiserver, as kubernetes' cmd/kube-apiserver/apiserver.go builds it.
package main

import (
	"os"
	_ "time/tzdata" // for timeZone support in CronJob

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // load all the prometheus client-go plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
GO
    GOFLAGS=-mod=mod go mod tidy >&2
    # The version a release build stamps; without it the server reports v0.0.0-master.
    v=k8s.io/component-base/version
    CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false" go build -trimpath \
      -ldflags "-s -w -X $v.gitVersion=v$KUBE_VERSION -X $v.gitMajor=${KUBE_VERSION%%.*} -X $v.gitMinor=$minor -X $v.gitTreeState=clean" \
      -o "$BIN/kube-apiserver" . >&2
  )
}

# etcd from Debian (etcd-server: 3.4 on bookworm), linked into $BIN. The tests start their own
# etcd on a free port, so the package's service must not stay running (it would hold 2379).
# Debian's path, not whatever etcd PATH finds: with $BIN on PATH that is the link itself.
ETCD_DEBIAN=/usr/bin/etcd
install_etcd() {
  if [ ! -x "$ETCD_DEBIAN" ]; then
    log "installing etcd from Debian (apt-get install etcd-server; once)…"
    local start=$SECONDS sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    : >"$LOGS/etcd.log"
    if ! apt-cache show etcd-server >/dev/null 2>&1; then
      logged etcd $sudo apt-get update -qq || return 1
    fi
    logged etcd $sudo apt-get install -y -qq --no-install-recommends etcd-server || return 1
    stop_etcd_service
    log "etcd $("$ETCD_DEBIAN" --version | sed -n 's/^etcd Version: //p') installed in $((SECONDS - start))s"
  fi
  ln -sfn "$ETCD_DEBIAN" "$BIN/etcd"
}

# Debian's package enables etcd.service and starts it where services may start (not under a
# policy-rc.d that forbids it, as in containers); stop and disable it either way.
stop_etcd_service() {
  local sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  if [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now etcd.service >/dev/null 2>&1 || true
  elif [ -x /etc/init.d/etcd ]; then
    $sudo /etc/init.d/etcd stop >/dev/null 2>&1 || true
  fi
}

case "${1:-all}" in
  terraform) build_terraform ;;
  tofu) build_tofu ;;
  kube-apiserver) build_kube_apiserver ;;
  etcd) install_etcd ;;
  kube) build_kube ;;
  all) build_all ;;
  *) echo "usage: $0 [all|terraform|tofu|kube|kube-apiserver|etcd]" >&2; exit 2 ;;
esac
echo "$BIN"
