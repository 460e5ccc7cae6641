#!/usr/bin/env bash
# One command from a fresh clone to a machine that can run every test:
# Debian packages (Wine, mingw, Chromium), npm packages, the Wine prefix, the test programs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
source scripts/node-headers.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-fund --no-audit
fi
bash scripts/setup-wine-prefix.sh
bash scripts/build-targets.sh
bash scripts/build-dotnet-targets.sh
