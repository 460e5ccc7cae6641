#!/usr/bin/env bash
# Builds the CLR test program (test/targets/dotnet) with the machine's .NET SDK:
#   build/dotnet/win-x64/cdbh-dotnet.exe   self-contained .NET 10 (runtime pack from NuGet), for Wine
#   build/dotnet/win-x64-net8/cdbh-dotnet.exe   the same on .NET 8 (classic e0434352 records)
#   build/dotnet/linux-x64/cdbh-dotnet     framework-dependent, run natively for dotnet-dump
# and restores the local dotnet-dump tool (test/targets/dotnet/dotnet-tools.json).
# Quick when nothing changed. Without a .NET SDK it says so and exits 0: the CLR tests then skip
# with that reason. Microsoft's binaries stay under build/ (git-ignored), never in git.
set -euo pipefail
repo_root=$(cd "$(dirname "$0")/.." && pwd)
src="$repo_root/test/targets/dotnet"
out="${CDB_HARNESS_DOTNET_DIR:-$repo_root/build/dotnet}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

if ! command -v dotnet >/dev/null; then
  echo "dotnet test program: skipped (no .NET SDK on PATH; the CLR tests will skip)" >&2
  exit 0
fi
mkdir -p "$out"

# Newer than every source file (and this script)?
fresh() {
  local target=$1
  [ -e "$target" ] || return 1
  local f
  for f in "$src"/*.cs "$src"/*.csproj "$src"/*.props "$0"; do
    [ "$target" -nt "$f" ] || return 1
  done
}

built=()
if ! fresh "$out/win-x64/cdbh-dotnet.exe"; then
  dotnet publish "$src/cdbh-dotnet.csproj" -f net10.0 -c Release -r win-x64 --self-contained \
    -o "$out/win-x64" --nologo -v quiet
  touch "$out/win-x64/cdbh-dotnet.exe"
  built+=(win-x64)
fi
if ! fresh "$out/win-x64-net8/cdbh-dotnet.exe"; then
  dotnet publish "$src/cdbh-dotnet.csproj" -f net8.0 -c Release -r win-x64 --self-contained \
    -o "$out/win-x64-net8" --nologo -v quiet
  touch "$out/win-x64-net8/cdbh-dotnet.exe"
  built+=(win-x64-net8)
fi
if ! fresh "$out/linux-x64/cdbh-dotnet"; then
  dotnet publish "$src/cdbh-dotnet.csproj" -f net10.0 -c Release -r linux-x64 --no-self-contained \
    -o "$out/linux-x64" --nologo -v quiet
  touch "$out/linux-x64/cdbh-dotnet"
  built+=(linux-x64)
fi
# dotnet-dump, pinned in the tool manifest, for scripts/record-dotnet-dump.sh.
# Only the recording script needs it: a failed restore is reported, not fatal.
(cd "$src" && dotnet tool restore >/dev/null) ||
  echo "dotnet-dump: tool restore failed (scripts/record-dotnet-dump.sh will not run)" >&2
runtime=$(sed -n 's/.*"runtimepack.Microsoft.NETCore.App.Runtime.win-x64": "\([^"]*\)".*/\1/p' \
  "$out/win-x64/cdbh-dotnet.deps.json" | head -1)
echo "dotnet test program: $out (${#built[@]} built${built:+: ${built[*]}}; runtime ${runtime:-?})"
