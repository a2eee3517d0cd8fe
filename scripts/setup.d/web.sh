#!/usr/bin/env bash
# The browser side: wasm target, trunk, wasm-bindgen-cli matching Cargo.lock, npm tools, Chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { printf '\033[1msetup (web):\033[0m %s\n' "$*"; }
source scripts/web-toolchain.sh
if ! rustup run "$WEB_TOOLCHAIN" rustc --print sysroot >/dev/null 2>&1 \
    || [ ! -d "$(rustup run "$WEB_TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library" ] \
    || [ ! -d "$(rustup run "$WEB_TOOLCHAIN" rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ]; then
    say "installing $WEB_TOOLCHAIN with rust-src and wasm32 (the bundle's standard library is built for size)"
    rustup toolchain install "$WEB_TOOLCHAIN" --profile minimal --component rust-src --target wasm32-unknown-unknown
fi
# Trunk builds offline (Trunk.toml), the standard library too (build-std): its own dependencies
# must be in Cargo's cache, which a fresh machine's is not ("no matching package named `wasip1`").
library="$(rustup run "$WEB_TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library"
RUSTUP_TOOLCHAIN="$WEB_TOOLCHAIN" cargo fetch --locked --quiet --manifest-path "$library/Cargo.toml"
if ! command -v trunk >/dev/null 2>&1 || ! trunk --version | grep -q '0.21.14'; then
    say "installing trunk 0.21.14 (several minutes)"
    cargo install trunk --version 0.21.14 --locked
fi
want="$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p')"
if ! command -v wasm-bindgen >/dev/null 2>&1 || ! wasm-bindgen --version | grep -q "$want"; then
    say "installing wasm-bindgen-cli $want"
    cargo install wasm-bindgen-cli --version "$want"
fi
if [ ! -x e2e/node_modules/.bin/wasm-opt ] || [ ! -x e2e/node_modules/.bin/terser ] || [ ! -d e2e/node_modules/playwright-core ] || [ ! -d e2e/node_modules/axe-core ]; then
    command -v npm >/dev/null 2>&1 || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get update -qq; DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm; }
    say "npm install (binaryen, terser, playwright-core, axe-core)"
    (cd e2e && npm ci --no-audit --no-fund 2>/dev/null || npm install --no-audit --no-fund)
fi
if [ ! -x /usr/bin/chromium ]; then
    say "apt-get install chromium"
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq; DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver
fi
