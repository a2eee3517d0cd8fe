#!/usr/bin/env bash
# Regenerates tests/tvm/*.tvm from the real TVM 0.27 (scripts/tvm-goldens.py). Not part of the test
# command: CI compares core's reproduction with the committed files and does not need TVM.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/tvm-venv.sh
cargo build -q --release -p stagecraft-core --bin stagecraft
exec .tools/tvm-venv/bin/python scripts/tvm-goldens.py target/release/stagecraft
