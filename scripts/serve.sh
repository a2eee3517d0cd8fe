#!/usr/bin/env bash
# Builds the explorer (release) and serves it on http://127.0.0.1:8080/ with the default example.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build-web.sh
port="${PORT:-8080}"
echo "Stagecraft: http://127.0.0.1:$port/"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory dist
