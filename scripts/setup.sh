#!/usr/bin/env bash
# One command from a fresh clone to a machine that can run every test:
# Debian packages (Wine, mingw, Chromium), npm packages, the Wine prefix, the test programs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-fund --no-audit
fi
# npm skips a missing optional package without a word; the engine tests need node-pty (the
# prebuilt @lydell/node-pty and its package for this platform), so say it here.
if ! node -e "require('@lydell/node-pty')" 2>/dev/null; then
  echo "setup: node-pty (@lydell/node-pty and @lydell/node-pty-$(node -p 'process.platform + "-" + process.arch')) did not install: run npm ci without --omit=optional" >&2
  exit 1
fi
# The CLI runs the compiled dist/ (bin/cdb-harness.js): build it once here (npm ci does not).
npm run build --silent
bash scripts/setup-wine-prefix.sh
bash scripts/build-targets.sh
# The Windows helpers run beside the target: native/window-probe (`dump -h`), native/break-in
# (interrupt() on Windows: DebugBreakProcess), native/commit-probe (`dump -m` without !address).
bash scripts/build-native.sh
bash scripts/build-dotnet-targets.sh
# The .NET diagnostics channel client (watch on Linux .NET, heap-trend's counters tier).
bash scripts/build-dotnet-diag.sh
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
# The test:windows tier (the CLI as a Windows process under Wine): Windows node from the npm
# registry, per-application Wine settings, the tier's stand-ins. Exit 3: the tier is skipped.
windows_status=0
bash scripts/setup-windows-tier.sh || windows_status=$?
if [ "$windows_status" -eq 3 ]; then
  echo "setup: the test:windows tier will be skipped (scripts/setup-windows-tier.sh said why above)" >&2
elif [ "$windows_status" -ne 0 ]; then
  exit "$windows_status"
fi
