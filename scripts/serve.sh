#!/usr/bin/env bash
# Builds the explorer (release) and serves it on http://127.0.0.1:8080/ with the default example,
# with the page's Content-Security-Policy as a header (scripts/serve-dist.py).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build-web.sh
port="${PORT:-8080}"
echo "Stagecraft: http://127.0.0.1:$port/"
exec python3 scripts/serve-dist.py "$port" dist
