#!/usr/bin/env bash
# Release build of the explorer into dist/ (wasm-opt from e2e/node_modules), then its size.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/e2e/node_modules/.bin:$PATH"
trunk build --release
./scripts/bundle-size.sh
