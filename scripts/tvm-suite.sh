#!/usr/bin/env bash
# Regenerates tests/tvm_suite/ (TVM's own InjectSoftwarePipeline tests: each input as a user pastes
# it, and what the real TVM 0.27 produces for it) with scripts/tvm-suite.py. Not part of the test
# command: core/tests/tvm_suite.rs compares Stagecraft with the committed files and needs no TVM.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/tvm-venv.sh
# The upstream test module imports pytest; the script imports it to compare with its objects.
.tools/tvm-venv/bin/python -c 'import pytest' 2>/dev/null || .tools/tvm-venv/bin/pip install -q pytest
exec .tools/tvm-venv/bin/python scripts/tvm-suite.py
