#!/usr/bin/env bash
# The main job on one machine: build the provider, start the local edge (API, workerd, tunnel
# emulation, router), apply examples/environments/local with the real Terraform CLI through an
# offline filesystem mirror, then send real requests through the edge and print what happened.
# The local edge keeps running afterwards; the last lines say how to stop it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEMO=${DEMO_DIR:-$ROOT/build/demo}
VERSION=0.0.1 # a prerelease would not satisfy an empty version constraint
step() { printf '\n==> %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }
# quietly <log> <command...>: runs a step's command with its output (the go command's "go:
# downloading" lines on a first run) in a log file, says how long it took, and shows where the
# log is and how it ends when it fails.
quietly() {
  local logf=$1 start=$SECONDS
  shift
  if ! "$@" >"$logf" 2>&1; then
    tail -n 20 "$logf" >&2
    die "that failed; its whole output is in $logf"
  fi
  echo "    done in $((SECONDS - start))s"
}

command -v curl >/dev/null || die "curl is needed to send the demo's requests (apt-get install curl)"

# A previous demo's local edge would hold the ports and the state: stop it first.
if [ -f "$DEMO/localedge.pid" ] && kill -0 "$(cat "$DEMO/localedge.pid")" 2>/dev/null; then
  step "stopping the previous local edge"
  kill "$(cat "$DEMO/localedge.pid")"; sleep 2
fi
[ -f "$DEMO/backend.pid" ] && kill "$(cat "$DEMO/backend.pid")" 2>/dev/null || true
rm -rf "$DEMO/state" "$DEMO/work"
mkdir -p "$DEMO"

step "npm packages, the Terraform CLI and the local cluster's API server (each built once, then cached)"
scripts/npm-ci.sh
# The CLI and kube-apiserver build from the Go module proxy in parallel on a first run; each says
# when it starts and how long it took, and keeps the go command's output in a log of its own.
scripts/install-tools.sh kube >"$DEMO/kube-assets" &
kube_install=$!
TF_BIN=$(scripts/install-tools.sh terraform)/terraform
wait "$kube_install" || die "installing etcd and kube-apiserver failed (above)"
KUBE_ASSETS=$(cat "$DEMO/kube-assets")
echo "    ready: $TF_BIN, and etcd and kube-apiserver in $KUBE_ASSETS"

step "building the provider and laying it into an offline mirror"
quietly "$DEMO/build-provider.log" env CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$VERSION" -o "$DEMO/terraform-provider-kamuidash" .
plat=$(go env GOOS)_$(go env GOARCH)
mirror="$DEMO/mirror/registry.terraform.io/kamuidash/kamuidash/$VERSION/$plat"
mkdir -p "$mirror"
cp "$DEMO/terraform-provider-kamuidash" "$mirror/terraform-provider-kamuidash_v$VERSION"
cat >"$DEMO/cli.tfrc" <<EOF
provider_installation {
  filesystem_mirror {
    path    = "$DEMO/mirror"
    include = ["registry.terraform.io/kamuidash/kamuidash"]
  }
}
EOF

step "starting the tenant backend and the local edge"
quietly "$DEMO/build-backend.log" go build -o "$DEMO/backend" ./worker-src/router/internal/benchtool
read -r BACKEND_PORT API_PORT EDGE_PORT <<<"$("$DEMO/backend" ports 3 | tr '\n' ' ')"
nohup "$DEMO/backend" backend -listen "127.0.0.1:$BACKEND_PORT" >"$DEMO/backend.log" 2>&1 &
echo $! >"$DEMO/backend.pid"
nohup "$DEMO/terraform-provider-kamuidash" localedge \
  --state-dir "$DEMO/state" --api "127.0.0.1:$API_PORT" --edge "127.0.0.1:$EDGE_PORT" \
  --ready-file "$DEMO/ready" --auto-validate 2s --kv-propagation 1s \
  --router --router-upstream-template '127.0.0.1:{port}' --kube-assets "$KUBE_ASSETS" >"$DEMO/localedge.log" 2>&1 &
echo $! >"$DEMO/localedge.pid"
printf 'waiting for the local edge (workerd starts in a few seconds)'
for _ in $(seq 180); do
  [ -f "$DEMO/ready" ] && break
  kill -0 "$(cat "$DEMO/localedge.pid")" 2>/dev/null || { echo; tail -20 "$DEMO/localedge.log"; die "the local edge exited"; }
  printf '.'; sleep 1
done
echo
[ -f "$DEMO/ready" ] || { tail -20 "$DEMO/localedge.log"; die "the local edge did not become ready in 180 s"; }
# shellcheck disable=SC1091
. "$DEMO/state/env"
echo "API  $KAMUIDASH_API_BASE_URL   edge $KAMUIDASH_EDGE_URL   platform $KAMUIDASH_PLATFORM_DOMAIN"
echo "registry $KAMUIDASH_LOCAL_REGISTRY   Kubernetes API kubeconfig $KUBECONFIG"

step "terraform init and apply (examples/environments/local)"
# The configuration reaches the modules by relative path (../../../modules): copy both in the
# repository's layout, and make the work dir a link to the copied configuration.
rm -rf "$DEMO/tree" && mkdir -p "$DEMO/tree/examples/environments/local"
cp -R modules "$DEMO/tree/modules"
cp examples/environments/local/*.tf "$DEMO/tree/examples/environments/local/"
cp -R examples/environments/local/site "$DEMO/tree/examples/environments/local/site"
ln -s tree/examples/environments/local "$DEMO/work"
export TF_CLI_CONFIG_FILE="$DEMO/cli.tfrc" TF_IN_AUTOMATION=1
export TF_VAR_backend_port=$BACKEND_PORT
# The router image goes to the local edge's registry; the router's NetworkPolicy to its
# Kubernetes API server (KUBECONFIG, from the env file).
export TF_VAR_router_image_repository=$KAMUIDASH_LOCAL_REGISTRY/kamuidash/router
# The Worker signs with the local edge's own secret: the probe key in its env file (which
# verify_propagation signs with) is derived from it.
TF_VAR_signing_secret=$KAMUIDASH_LOCAL_SIGNING_SECRET
TF_VAR_cache_marker=$(head -c 24 /dev/urandom | base64 | tr -d '\n=+/')
export TF_VAR_signing_secret TF_VAR_cache_marker
(cd "$DEMO/work" && "$TF_BIN" init -input=false -no-color >/dev/null && "$TF_BIN" apply -input=false -auto-approve -no-color) \
  | grep -E '^(kamuidash_|data\.|Apply complete|Plan:)' || die "terraform apply failed; see the output above"
(cd "$DEMO/work" && "$TF_BIN" plan -input=false -detailed-exitcode -no-color >/dev/null) \
  && echo "re-plan: no changes" || die "the re-plan is not empty"
# What was applied, by resource type (the modules' addresses without their module paths).
echo "applied:"
(cd "$DEMO/work" && "$TF_BIN" state list) | sed -n 's/^\(module\.[^.]*\.\)*\(kamuidash_[a-z_]*\)\..*/\2/p' | sort | uniq -c |
  awk '{ printf "    %-34s %d\n", $2, $1 }'

echo "fallback origin (custom hostnames are served only once it is active): $(cd "$DEMO/work" && "$TF_BIN" output -json fallback_origin)"

step "requests through the edge"
hosts_json=$(cd "$DEMO/work" && "$TF_BIN" output -json hosts)
host() { echo "$hosts_json" | sed -n "s/.*\"$1\": *\"\\([^\"]*\\)\".*/\\1/p"; }
# The upload reloads workerd and KV writes arrive after the emulated propagation delay: wait
# until the dynamic app answers, then probe each host once.
printf 'waiting for the edge to serve the new Worker'
for _ in $(seq 120); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $(host dynamic)" "$KAMUIDASH_EDGE_URL/" || true)
  [ "$code" = 200 ] && break
  printf '.'; sleep 1
done
echo
fails=0
probe() { # probe <label> <host> <expected status> <what that status means>
  local out status
  out=$(curl -s -o "$DEMO/body" -w '%{http_code} %{header_json}' -H "Host: $2" "$KAMUIDASH_EDGE_URL/" || true)
  status=${out%% *}
  printf '%-8s %-34s %s  ' "$1" "$2" "$status"
  if [ "$status" = "$3" ]; then echo "$4"; else echo "UNEXPECTED (wanted $3): $(head -c 200 "$DEMO/body")"; fails=$((fails + 1)); fi
}
probe dynamic "$(host dynamic)" 200 "edge Worker → tunnel → router (signed context) → tenant backend"
probe custom  "$(host custom)"  200 "custom hostname → DOMAINS mapping → same app → tunnel → router → backend"
probe static  "$(host static)"  200 "static record → the version's manifest → index.html's object in the R2 bucket, no tunnel"
probe unknown "$(host unknown)" 404 "unknown host: fixed 404 from the Worker, negative-cached"

cluster_json=$(cd "$DEMO/work" && "$TF_BIN" output -json cluster)
printf '%-8s %s\n' image "$(echo "$cluster_json" | sed -n 's/.*"router_image": *"\([^"]*\)".*/\1/p')  pushed to the local registry (linux/amd64 + linux/arm64)"
printf '%-8s %s\n' policy "$(echo "$cluster_json" | sed -n 's/.*"network_policy": *"\([^"]*\)".*/\1/p')  applied to the local Kubernetes API: only the tunnel connector reaches the router"

cat <<EOF

The local edge is still running (pid $(cat "$DEMO/localedge.pid"), logs in $DEMO/localedge.log).
Use it from your own configuration:   . $DEMO/state/env
Stop it:                              kill \$(cat $DEMO/localedge.pid) \$(cat $DEMO/backend.pid)
EOF
[ "$fails" -eq 0 ] || die "$fails request(s) did not answer as expected"
