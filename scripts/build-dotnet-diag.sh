#!/usr/bin/env bash
# Builds cdbh-diag (native/dotnet-diag), the harness's client of the .NET diagnostics IPC channel,
# with the machine's .NET SDK into build/dotnet-diag/out/ (cdbh-diag + cdbh-diag.dll). Its two
# libraries come from NuGet, pinned in native/dotnet-diag/cdbh-diag.csproj:
# Microsoft.Diagnostics.NETCore.Client and Microsoft.Diagnostics.Tracing.TraceEvent.
# Quick when nothing changed. Without a .NET SDK it says so and exits 0: watch on Linux .NET and
# the counters tier then say how to build it, and their tests skip with that reason.
set -euo pipefail
repo_root=$(cd "$(dirname "$0")/.." && pwd)
src="$repo_root/native/dotnet-diag"
out="${CDB_HARNESS_DOTNET_DIAG_DIR:-$repo_root/build/dotnet-diag/out}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

if ! command -v dotnet >/dev/null; then
  echo "cdbh-diag: skipped (no .NET SDK on PATH; watch on Linux .NET and the counters tier need it)" >&2
  exit 0
fi
target="$out/cdbh-diag.dll"
fresh=1
[ -e "$target" ] || fresh=0
if [ "$fresh" -eq 1 ]; then
  for f in "$src"/*.cs "$src"/*.csproj "$src"/*.props "$0"; do
    [ "$target" -nt "$f" ] || { fresh=0; break; }
  done
fi
if [ "$fresh" -eq 0 ]; then
  mkdir -p "$out"
  dotnet build "$src/cdbh-diag.csproj" -c Release -o "$out" --nologo -v quiet
  touch "$target"
  echo "cdbh-diag: built into $out"
else
  echo "cdbh-diag: $out (up to date)"
fi
