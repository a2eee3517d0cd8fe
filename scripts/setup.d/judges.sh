#!/usr/bin/env bash
# The judges of emitted code: ptxas (PyPI nvidia-cuda-nvcc-cu12, in .tools/venv; runs without a GPU)
# and LLVM 22 (llvm-mc-22, llvm-as-22, opt-22 from Debian's llvm-22). Skips what is present.
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { printf '\033[1msetup (judges):\033[0m %s\n' "$*"; }
if ! ls .tools/venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas >/dev/null 2>&1; then
    say "creating .tools/venv with nvidia-cuda-nvcc-cu12 (ptxas)"
    python3 -m venv .tools/venv
    .tools/venv/bin/pip install -q nvidia-cuda-nvcc-cu12
fi
if ! command -v llvm-mc-22 >/dev/null 2>&1 || ! command -v opt-22 >/dev/null 2>&1; then
    say "apt-get install llvm-22"
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq llvm-22 || {
        echo "setup: llvm-22 is not in this machine's apt sources; see ../shared/TOOLCHAIN.md" >&2; exit 1; }
fi
