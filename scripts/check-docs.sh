#!/usr/bin/env bash
# Fails when docs/ differs from what `make generate` writes: the docs are generated from the
# schema descriptions, templates/ and examples/, never edited by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory generate >/dev/null
if ! git diff --quiet -- docs || [ -n "$(git ls-files --others --exclude-standard docs)" ]; then
  echo "docs/ is stale: run 'make generate' and commit the result." >&2
  git status --short docs >&2
  git --no-pager diff --stat -- docs >&2
  exit 1
fi
echo "docs/ matches the provider schema"
