#!/usr/bin/env bash
# Release build of the explorer into dist/ (wasm-opt from e2e/node_modules), then its size.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/e2e/node_modules/.bin:$PATH"
# The bundle is built by a pinned nightly that compiles the standard library for size
# (optimize_for_size) and aborts on a panic without formatting it: 448 KB → about 428 KB gzipped
# for the same app (docs/benchmarks.md), room for the teaching features within the 450 KB budget.
# A panic is then a WebAssembly trap; index.html turns it into the same "internal error" banner.
# Native builds, tests and clippy stay on rust-toolchain.toml's stable.
# `--cfg erase_components`: Leptos type-erases each component and each `{move || …}` child, so its
# rendering code is made once per output type rather than once per closure (2.9 KB gzipped off
# the bundle with views::copy made non-generic, docs/benchmarks.md "Making room in the bundle").
source scripts/web-toolchain.sh
export RUSTUP_TOOLCHAIN="$WEB_TOOLCHAIN"
export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
export RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort --cfg erase_components"
trunk build --release
# Then the classes no one uses dropped with their code (2 KB gzipped), wasm-bindgen's hashed import
# names shortened (6 KB) and wasm-opt, which Trunk is told not to run (index.html).
python3 scripts/slim-bundle.py dist
./scripts/bundle-size.sh
