#!/usr/bin/env bash
# Everything CI runs, on a machine with nothing cached: npm packages from the lockfile, the
# Terraform and OpenTofu CLIs and kube-apiserver built from the Go module proxy, etcd from Debian,
# the linters (scripts/lint.sh: go vet, staticcheck, golangci-lint), unit tests
# (internal/kubetest's against that etcd and kube-apiserver), the Worker in workerd,
# the local edge's API contract, acceptance tests (every package's TestAcc*) on both CLIs, and the
# drift checks of the docs and of the router's dependency tree.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "npm packages (lockfile)"
scripts/npm-ci.sh

# The CLI must not read a developer's ~/.terraformrc (dev_overrides there would bypass the
# in-process provider the harness serves), nor a configured file that does not exist.
export TF_CLI_CONFIG_FILE=/dev/null

step "Terraform and OpenTofu CLIs, etcd and kube-apiserver"
TOOLS_BIN=$(scripts/install-tools.sh all)
export PATH="$TOOLS_BIN:$PATH"
# internal/kubetest starts etcd and kube-apiserver from here (and fails without them).
export KUBEBUILDER_ASSETS="$TOOLS_BIN"
terraform version | sed -n 1p
tofu version | sed -n 1p
etcd --version | sed -n 1p
kube-apiserver --version

step "Go modules of the provider and its tools (into the module cache, once)"
# The go command prints a line per module it downloads (about 300 on an empty cache); they go
# to a log, and this step says how long it took. Listing every package with its tests and
# every tool's packages downloads exactly what the steps below build.
mkdir -p build/logs
modlog=build/logs/go-modules.log
started=$SECONDS
if ! { go list -deps -test ./... && go list -modfile=tools/go.mod -deps tool &&
	go list -modfile=tools/golangci/go.mod -deps tool; } >/dev/null 2>"$modlog"; then
	tail -n 20 "$modlog" >&2
	echo "test: downloading Go modules failed; the go command's output is in $modlog" >&2
	exit 1
fi
echo "    $(grep -c '^go: downloading' "$modlog" || true) modules downloaded in $((SECONDS - started))s (list in $modlog)"

step "go vet, staticcheck and golangci-lint"
scripts/lint.sh

step "unit and runtime tests (go test ./...)"
go test -count=1 ./...

# The acceptance suites are long and mostly serial: internal/provider's alone takes about nine
# minutes on two CPUs, and beside the other packages it ran past go test's default limit of ten
# minutes a package (a timeout, not a failure). The limit is set for that, well inside CI's 90.
ACC_TIMEOUT=30m

step "acceptance tests with Terraform $(terraform version -json | sed -n 's/.*"terraform_version": *"\([^"]*\)".*/\1/p')"
TF_ACC=1 TF_ACC_TERRAFORM_PATH="$TOOLS_BIN/terraform" \
  go test -count=1 -timeout "$ACC_TIMEOUT" -run '^TestAcc' ./...

step "acceptance tests with OpenTofu"
TF_ACC=1 TF_ACC_TERRAFORM_PATH="$TOOLS_BIN/tofu" TF_ACC_PROVIDER_HOST=registry.opentofu.org \
  go test -count=1 -timeout "$ACC_TIMEOUT" -run '^TestAcc' ./...

step "generated docs are up to date"
scripts/check-docs.sh

step "the router's dependency tree is up to date"
make --no-print-directory check-router-deps

echo
echo "all tests passed"
