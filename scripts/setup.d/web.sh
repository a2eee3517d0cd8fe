#!/usr/bin/env bash
# The browser side: wasm target (rust-toolchain.toml), the page's nightly with the standard
# library's source (scripts/page-toolchain.sh), trunk, wasm-bindgen-cli matching Cargo.lock, npm
# tools (binaryen's wasm-opt, playwright-core, axe-core), Chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { printf '\033[1msetup (web):\033[0m %s\n' "$*"; }
source scripts/page-toolchain.sh
sysroot() { rustup run "$PAGE_TOOLCHAIN" rustc --print sysroot 2>/dev/null; }
if [ -z "$(sysroot)" ] || [ ! -d "$(sysroot)/lib/rustlib/src/rust/library" ]; then
    say "installing $PAGE_TOOLCHAIN with rust-src (the page's standard library is built for size)"
    rustup toolchain install "$PAGE_TOOLCHAIN" --profile minimal --component rust-src
fi
# Trunk builds offline (Trunk.toml), the page's standard library too: its own dependencies must be
# in Cargo's cache, which a fresh machine's is not.
RUSTUP_TOOLCHAIN="$PAGE_TOOLCHAIN" cargo fetch --locked --quiet --manifest-path "$(sysroot)/lib/rustlib/src/rust/library/Cargo.toml"
if ! command -v trunk >/dev/null 2>&1 || ! trunk --version | grep -q '0.21.14'; then
    say "installing trunk 0.21.14 (several minutes)"
    cargo install trunk --version 0.21.14 --locked
fi
want="$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p')"
if ! command -v wasm-bindgen >/dev/null 2>&1 || ! wasm-bindgen --version | grep -q "$want"; then
    say "installing wasm-bindgen-cli $want"
    cargo install wasm-bindgen-cli --version "$want"
fi
if [ ! -x e2e/node_modules/.bin/wasm-opt ] || [ ! -d e2e/node_modules/playwright-core ] || [ ! -d e2e/node_modules/axe-core ]; then
    command -v npm >/dev/null 2>&1 || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get update -qq; DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm; }
    say "npm install (binaryen, playwright-core, axe-core)"
    (cd e2e && npm ci --no-audit --no-fund 2>/dev/null || npm install --no-audit --no-fund)
fi
if [ ! -x /usr/bin/chromium ]; then
    say "apt-get install chromium"
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq; DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver
fi
