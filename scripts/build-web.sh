#!/usr/bin/env bash
# Release build of the explorer into dist/ (Trunk, with wasm-opt from e2e/node_modules): the page's
# wasm (by the pinned nightly of scripts/page-toolchain.sh) and the core's worker; then the
# worker's files named by their content (scripts/version-worker.py), Trunk's inline start module
# moved into a file for the page's Content-Security-Policy (scripts/start-script.py), and the bytes
# of each file against its budget.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/e2e/node_modules/.bin:$PATH"
# `--cfg erase_components`: Leptos type-erases each component and each `{move || …}` child, so its
# rendering code is made once per output type rather than once per closure.
export RUSTFLAGS="--cfg erase_components"
# The page's build gets its own toolchain and flags (scripts/page-cargo/cargo, which says why).
STAGECRAFT_REAL_CARGO="$(command -v cargo)"
export STAGECRAFT_REAL_CARGO
export PATH="$PWD/scripts/page-cargo:$PATH"
trunk build --release
python3 scripts/version-worker.py dist
python3 scripts/start-script.py dist
./scripts/bundle-size.sh
