#!/usr/bin/env bash
# Re-records the real gcdumps under test/fixtures/gcdump/: runs the CLR test program's sessions
# mode natively on Linux (framework-dependent, the SDK's runtime), takes three `dotnet-gcdump
# collect` snapshots of the one process a few ticks apart (a series for --from-gcdumps and the
# per-type reader), and saves `dotnet-gcdump report` of each beside it (the counts the reader must
# match). Each .gcdump is binary: how it was made is in README.md there, written by this script, and
# each report .txt file carries the 5-line header the transcript corpus uses. Tests read only the
# committed files; run this by hand after a runtime or dotnet-gcdump update. Needs the .NET SDK
# (scripts/build-dotnet-targets.sh builds the program and restores the pinned tools).
set -euo pipefail
repo_root=$(cd "$(dirname "$0")/.." && pwd)
src="$repo_root/test/targets/dotnet"
dest="$repo_root/test/fixtures/gcdump"
bash "$repo_root/scripts/build-dotnet-targets.sh" >/dev/null
program="${CDB_HARNESS_DOTNET_DIR:-$repo_root/build/dotnet}/linux-x64/cdbh-dotnet"
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$dest"
# The runtime's diagnostics socket goes under TMPDIR: the program and the tool share it.
export TMPDIR="$work"

gcdump() { (cd "$src" && dotnet tool run dotnet-gcdump -- "$@"); }
tool_version=$(gcdump --version | cut -d+ -f1)
runtime_version=$(dotnet --list-runtimes | sed -n 's/^Microsoft.NETCore.App \([^ ]*\) .*/\1/p' | tail -1)
today=$(date -u +%Y-%m-%d)
mode='sessions -i 50 --session-kb 16 --large-kb 4096 -n 0'

# shellcheck disable=SC2086
"$program" $mode >"$work/program.log" 2>&1 &
pid=$!
wait_tick() {
  for _ in $(seq 1 300); do
    grep -q "^sessions tick=$1 " "$work/program.log" && return 0
    sleep 0.1
  done
  echo "the program did not reach tick $1:" >&2
  cat "$work/program.log" >&2
  exit 1
}
ticks=(10 30 50)
for n in 1 2 3; do
  wait_tick "${ticks[$((n - 1))]}"
  gcdump collect -p "$pid" -o "$dest/sessions-$n.gcdump" >/dev/null
  {
    echo "# source: recorded by scripts/record-gcdump.sh on $today (test program test/targets/dotnet)"
    echo "# tool: dotnet-gcdump $tool_version report on Linux x64, .NET runtime $runtime_version"
    echo "# command: dotnet-gcdump report sessions-$n.gcdump"
    echo "# notes: snapshot $n of 3 of one '$mode' run, taken once the program had printed tick ${ticks[$((n - 1))]} (it ticks on while the tool runs)"
    echo "# ---"
    gcdump report "$dest/sessions-$n.gcdump"
  } >"$dest/sessions-$n.report.txt"
  echo "recorded $dest/sessions-$n.gcdump"
done
kill "$pid"
pid=
cat >"$dest/README.md" <<EOF
# Real gcdumps of the CLR test program

Recorded by \`scripts/record-gcdump.sh\` on $today: \`dotnet-gcdump $tool_version collect -p PID -o FILE\`
on Linux x64, .NET runtime $runtime_version, against one run of
\`build/dotnet/linux-x64/cdbh-dotnet $mode\` (test/targets/dotnet), three snapshots taken when the
program printed \`sessions tick=${ticks[0]}\`, \`tick=${ticks[1]}\` and \`tick=${ticks[2]}\`. Each \`.report.txt\` is
\`dotnet-gcdump report\` of the snapshot of the same number, with a header. Nothing here is edited by
hand; run the script again to re-record.
EOF
