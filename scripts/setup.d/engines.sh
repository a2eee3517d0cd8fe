#!/usr/bin/env bash
# The other engines the browser tests' main path runs in (e2e/engines/): Firefox ESR, driven by
# npm puppeteer-core over WebDriver BiDi, and WebKit (Safari's engine): WebKitWebDriver with its
# MiniBrowser under a virtual X display. Skips what is already installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { printf '\033[1msetup (engines):\033[0m %s\n' "$*"; }
missing=()
for pkg in firefox-esr webkit2gtk-driver xvfb; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "apt-get install ${missing[*]}"
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
if [ ! -d e2e/node_modules/puppeteer-core ]; then
    say "npm install (puppeteer-core)"
    (cd e2e && npm ci --no-audit --no-fund 2>/dev/null || npm install --no-audit --no-fund)
fi
