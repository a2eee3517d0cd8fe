#!/usr/bin/env bash
# Installs apache-tvm into .tools/tvm-venv (if missing), builds Stagecraft (the benchmarks' profile:
# release with whole-program optimisation; cargo puts it in target/release) and prints the
# side-by-side timing table of scripts/compare-tvm.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/tvm-venv.sh
cargo build -q --profile bench -p stagecraft-core --bin stagecraft
exec .tools/tvm-venv/bin/python scripts/compare-tvm.py target/release/stagecraft
