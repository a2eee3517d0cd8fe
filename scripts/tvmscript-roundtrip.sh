#!/usr/bin/env bash
# TVMScript out in TVM 0.27: builds the CLI, makes .tools/tvm-venv (scripts/tvm-venv.sh, about a
# minute the first time) and parses every example's and golden case's export there, running
# InjectSoftwarePipeline on it (scripts/tvmscript-roundtrip.py). scripts/test.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/tvm-venv.sh
cargo build --release -q -p stagecraft-core --bin stagecraft
.tools/tvm-venv/bin/python scripts/tvmscript-roundtrip.py target/release/stagecraft
