#!/usr/bin/env bash
# Apache TVM 0.27 (PyPI apache-tvm, CPU only) in .tools/tvm-venv: the real
# InjectSoftwarePipeline that scripts/tvm-goldens.py records the golden outputs from, and the
# TVMScript round trips. Skips what is present; the version is pinned so goldens stay reproducible.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1msetup (tvm):\033[0m %s\n' "$*"; }
want="0.27.0.post1"
py=.tools/tvm-venv/bin/python
if [ -x "$py" ] && [ "$("$py" -c 'import tvm; print(tvm.__version__)' 2>/dev/null)" = "$want" ]; then
    exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "setup (tvm): python3 is required" >&2; exit 1; }
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv
fi
say "creating .tools/tvm-venv with apache-tvm $want (about a minute)"
mkdir -p .tools
[ -x "$py" ] || python3 -m venv .tools/tvm-venv
.tools/tvm-venv/bin/pip install -q "apache-tvm==$want"
