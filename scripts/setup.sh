#!/usr/bin/env bash
# Installs what Stagecraft's build and tests need, skipping whatever is already present.
# Safe to run again and again; scripts/serve.sh and scripts/test.sh call it first.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

apt_install() {
    # Installs the Debian packages given that are not installed yet.
    local missing=()
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "apt-get install ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

if ! command -v rustup >/dev/null 2>&1; then
    echo "setup: rustup is required (https://rustup.rs); this machine class ships it" >&2
    exit 1
fi
# Installs the toolchain pinned in rust-toolchain.toml (with the wasm32 target) if missing.
if ! rustup toolchain list | grep -q "^$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)"; then
    say "installing the pinned Rust toolchain"
fi
rustup toolchain install >/dev/null

command -v python3 >/dev/null 2>&1 || apt_install python3
command -v gzip >/dev/null 2>&1 || apt_install gzip

for part in scripts/setup.d/*.sh; do
    [ -e "$part" ] || continue
    bash "$part"
done
say "ready"
