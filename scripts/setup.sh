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
bash scripts/build-pdb-targets.sh
# The real Debugger Engine (NuGet) for the test:dbgeng tier. Exit 3 means the package cannot be had
# (no NuGet here): the tier is skipped with that reason; any other failure is a real one.
dbgeng_status=0
bash scripts/setup-dbgeng.sh || dbgeng_status=$?
if [ "$dbgeng_status" -eq 3 ]; then
  echo "setup: the test:dbgeng tier will be skipped (scripts/setup-dbgeng.sh said why above)" >&2
elif [ "$dbgeng_status" -ne 0 ]; then
  exit "$dbgeng_status"
fi
