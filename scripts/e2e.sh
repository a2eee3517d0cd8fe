#!/usr/bin/env bash
# Release build, served on 127.0.0.1, driven by Playwright in Debian's Chromium (node --test): every
# e2e/*.test.mjs; then the main path in Chromium, Firefox ESR and WebKit (e2e/engines/*.test.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build-web.sh
port="${E2E_PORT:-8765}"
# Served with the page's Content-Security-Policy as a header too, as the worker needs it.
python3 scripts/serve-dist.py "$port" dist >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
# --test-force-exit: a test file whose browser is left open (a case failed before closing it)
# ends with its tests rather than keeping CI waiting until its time runs out.
(cd e2e && STAGECRAFT_URL="http://127.0.0.1:$port/" node --test --test-concurrency=1 --test-force-exit *.test.mjs engines/*.test.mjs)
echo "screenshots: e2e/screenshots/"
