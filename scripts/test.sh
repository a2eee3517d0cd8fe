#!/usr/bin/env bash
# Runs every test: formatting, lints, the core's unit/golden/property tests, the emitted-code judges,
# the app's browser tests and the bundle-size budget. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test (core: units, goldens, properties, interpreter, judges; the link codec; the app: units, module graph)"
cargo test --workspace --release

step "scripts/tvmscript-roundtrip.sh (every export parsed and pipelined by TVM 0.27, in .tools/tvm-venv)"
./scripts/tvmscript-roundtrip.sh

for extra in scripts/e2e.sh scripts/bundle-size.sh scripts/fuzz-smoke.sh; do
    if [ -x "$extra" ]; then
        step "$extra"
        "$extra"
    fi
done
step "all tests passed"
