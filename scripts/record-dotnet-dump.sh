#!/usr/bin/env bash
# Re-records the real SOS transcripts under test/fixtures/transcripts/dotnet-dump/: runs the CLR
# test program natively on Linux (framework-dependent, the SDK's runtime), takes two dumps with
# `dotnet-dump collect` (one parked inside nested catch blocks, one after a managed + native
# leak) and saves `dotnet-dump analyze -c CMD` output per command, each with the 5-line header
# the transcript corpus uses (`record-dotnet-dump.sh sessions` records only the sessions dump's
# files; `cache` only the SessionCache files, for the static-label check). Tests read only the
# committed files; run this by hand after a
# runtime or dotnet-dump update, then UPDATE_GOLDEN=1 npx mocha test/parsers/dotnet-dump-fixtures.test.ts
# and review the diff. Needs the .NET SDK (scripts/build-dotnet-targets.sh builds and restores).
set -euo pipefail
repo_root=$(cd "$(dirname "$0")/.." && pwd)
src="$repo_root/test/targets/dotnet"
dest="$repo_root/test/fixtures/transcripts/dotnet-dump"
bash "$repo_root/scripts/build-dotnet-targets.sh" >/dev/null
program="${CDB_HARNESS_DOTNET_DIR:-$repo_root/build/dotnet}/linux-x64/cdbh-dotnet"
work=$(mktemp -d)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$dest"

dotnet_dump() { (cd "$src" && dotnet tool run dotnet-dump -- "$@"); }
tool_version=$(dotnet_dump --version | cut -d+ -f1)
runtime_version=$(dotnet --list-runtimes | sed -n 's/^Microsoft.NETCore.App \([^ ]*\) .*/\1/p' | tail -1)
today=$(date -u +%Y-%m-%d)

# Starts the program with its stdout in $work/NAME.log, waits for `holding`, then dumps it.
collect() {
  local name=$1
  shift
  "$program" "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  local pid=$!
  for _ in $(seq 1 200); do
    grep -q '^holding' "$work/$name.log" && break
    sleep 0.1
  done
  grep -q '^holding' "$work/$name.log" || {
    echo "the program did not reach its hold point:" >&2
    cat "$work/$name.log" >&2
    exit 1
  }
  dotnet_dump collect -p "$pid" --type Heap -o "$work/$name.core" >/dev/null
  kill "$pid"
}

# record DUMP FILE COMMAND NOTES: one transcript file per command.
record() {
  local dump=$1 file=$2 command=$3 notes=$4
  local out="$dest/$file"
  {
    echo "# source: recorded by scripts/record-dotnet-dump.sh on $today (test program test/targets/dotnet)"
    echo "# tool: dotnet-dump $tool_version analyze (SOS) on Linux x64, .NET runtime $runtime_version"
    echo "# command: $command"
    echo "# notes: $notes; dotnet-dump analyze DUMP -c '$command' -c exit, the 'Loading core dump' line removed"
    echo "# ---"
    dotnet_dump analyze "$work/$dump.core" -c "$command" -c exit | grep -v '^Loading core dump: '
  } >"$out"
  echo "recorded $out"
}

only=${1:-all}
if [ "$only" = all ]; then
  collect exceptions exceptions --acts invalid-op,null,inner,hold --hold 120000 -i 10
  collect leak leak -n 40 -i 10 --managed-kb 256 --native-kb 128 --hold 120000
fi
if [ "$only" = series ]; then
  # Four heap dumps of one running sessions program, a second apart (live objects only): the
  # bodies of the cdb emulator scenarios that stand for cdb + SOS samples
  # (test/heap-trend/cdb-emulator-clr.test.ts): SOS prints the same text under cdb.
  "$program" sessions -i 40 --session-kb 16 --large-kb 4096 -n 0 >"$work/series.log" 2>&1 &
  pids+=($!)
  series_pid=$!
  for _ in $(seq 1 100); do
    grep -q '^sessions tick=5 ' "$work/series.log" && break
    sleep 0.1
  done
  for n in 1 2 3 4; do
    dotnet_dump collect -p "$series_pid" --type Heap -o "$work/series-$n.core" >/dev/null
    sleep 1
  done
  kill "$series_pid"
  for n in 1 2 3 4; do
    note="sample $n of 4 heap dumps of one sessions run (-i 40 --session-kb 16 --large-kb 4096), a second apart"
    record "series-$n" "series-dumpheap-stat-live-$n-linux-net10.txt" 'dumpheap -stat -live' "$note"
    record "series-$n" "series-eeheap-gc-$n-linux-net10.txt" 'eeheap -gc' "$note"
  done
  bytes_mt=$(dotnet_dump analyze "$work/series-4.core" -c 'dumpheap -stat' -c exit |
    awk '$4 == "System.Byte[]" && NF == 4 { print $1; exit }')
  record series-4 series-dumpheap-mt-short-bytes-4-linux-net10.txt \
    "dumpheap -mt $bytes_mt -min 16000 -max 17000 -short" "the 16 KB byte[] payloads of sample 4"
  payload=$(dotnet_dump analyze "$work/series-4.core" \
    -c "dumpheap -mt $bytes_mt -min 16000 -max 17000 -short" -c exit | sed -n 2p)
  record series-4 series-gcroot-payload-4-linux-net10.txt "gcroot $payload" \
    "the first 16 KB byte[] of sample 4"
  exit 0
fi
if [ "$only" = cache ]; then
  # The issue 32 shape: the sessions held by SessionCache.Entries, declared just after a constant
  # List<string> SessionCache.Ballast. gcroot labels the dictionary with its neighbour's name; the
  # module's types and SessionCache's statics (dumpclass) say which static really holds it.
  collect cache sessions -n 60 -i 10 --session-kb 16 --cache --ballast 2000 --hold 120000
  cache='after 60 ticks of the sessions mode with --cache --ballast 2000 (60 SessionState in the static Dictionary<Guid, SessionState> SessionCache.Entries, declared after the static List<string> SessionCache.Ballast of 2,000 strings)'
  analyze_cache() { dotnet_dump analyze "$work/cache.core" -c "$1" -c exit; }
  cache_session_mt=$(analyze_cache 'dumpheap -stat' |
    awk '$4 == "CdbHarness.Targets.SessionState" && NF == 4 { print $1; exit }')
  cache_session=$(analyze_cache "dumpheap -mt $cache_session_mt -short" | sed -n 2p)
  record cache gcroot-cache-session-state-linux-net10.txt "gcroot $cache_session" \
    "$cache; the first SessionState"
  record cache dumpdomain-cache-linux-net10.txt 'dumpdomain' "$cache"
  module=$(analyze_cache dumpdomain | awk '$1 ~ /^[0-9a-f]+$/ && $2 ~ /cdbh-dotnet\.dll$/ { print $1; exit }')
  record cache dumpmodule-mt-cache-linux-net10.txt "dumpmodule -mt $module" \
    "$cache; the program's own module"
  cache_mt=$(analyze_cache "dumpmodule -mt $module" |
    awk '$3 == "CdbHarness.Targets.SessionCache" { print $1; exit }')
  record cache dumpclass-session-cache-linux-net10.txt "dumpclass $cache_mt" \
    "$cache; SessionCache by its method table: Ballast and Entries with their values"
  exit 0
fi
collect sessions sessions -n 60 -i 10 --session-kb 16 --large-kb 4096 --hold 120000

if [ "$only" = all ]; then
  nested='main thread parked in a catch (WidgetException with an inner FormatException) inside a catch (InvalidOperationException)'
  record exceptions pe-current-widget-inner-format-linux-net10.txt 'pe' "$nested"
  record exceptions pe-nested-widget-within-invalidop-linux-net10.txt 'pe -nested' "$nested"
  record exceptions clrstack-hold-in-nested-catch-linux-net10.txt 'clrstack' "$nested"
  record exceptions clrstack-a-hold-in-nested-catch-linux-net10.txt 'clrstack -a' "$nested"
  record exceptions threads-exceptions-linux-net10.txt 'threads' "$nested"
  record exceptions eeheap-gc-workstation-linux-net10.txt 'eeheap -gc' "$nested"
  record exceptions dumpheap-stat-small-linux-net10.txt 'dumpheap -stat' "$nested"
  leak='after 40 leak ticks (40 x 256 KB byte[] in a static List, 40 x 128 KB AllocHGlobal)'
  record leak dumpheap-stat-leak-byte-arrays-linux-net10.txt 'dumpheap -stat' "$leak"
  record leak eeheap-gc-leak-linux-net10.txt 'eeheap -gc' "$leak"
  record leak pe-no-current-exception-linux-net10.txt 'pe' "$leak; no exception on the main thread"
fi

# The sessions dump: per-type rows, object addresses, and what holds them (gcroot needs an address
# from the same dump, so it is looked up first).
sessions='after 60 ticks of the sessions mode (60 SessionState, each with a 16 KB byte[], in a static Dictionary<Guid, SessionState>; one 4 MB LargeBlob)'
record sessions dumpheap-stat-sessions-linux-net10.txt 'dumpheap -stat' "$sessions"
record sessions dumpheap-type-short-sessions-linux-net10.txt \
  'dumpheap -type CdbHarness.Targets.SessionState -short' "$sessions"
record sessions dumpheap-short-sessions-linux-net10.txt 'dumpheap -short' "$sessions"
record sessions dumpheap-type-sessions-linux-net10.txt \
  'dumpheap -type CdbHarness.Targets.SessionState' "$sessions"
# `-type` matches a substring (it lists the Dictionary<Guid, SessionState> too): the method table
# from the statistics picks exactly one type, as heap-trend's retention step does.
method_table() {
  dotnet_dump analyze "$work/sessions.core" -c 'dumpheap -stat' -c exit |
    awk -v name="$1" '$4 == name && NF == 4 { print $1; exit }'
}
session_mt=$(method_table CdbHarness.Targets.SessionState)
bytes_mt=$(method_table 'System.Byte[]')
record sessions dumpheap-mt-short-sessions-linux-net10.txt "dumpheap -mt $session_mt -short" \
  "$sessions; the method table of CdbHarness.Targets.SessionState"
first_session=$(dotnet_dump analyze "$work/sessions.core" \
  -c "dumpheap -mt $session_mt -short" -c exit | sed -n 2p)
record sessions gcroot-session-state-linux-net10.txt "gcroot $first_session" \
  "$sessions; the first SessionState"
payload=$(dotnet_dump analyze "$work/sessions.core" \
  -c "dumpheap -mt $bytes_mt -min 16000 -max 17000 -short" -c exit | sed -n 2p)
record sessions gcroot-payload-byte-array-linux-net10.txt "gcroot $payload" \
  "$sessions; the first 16 KB byte[] (a SessionState payload)"
record sessions gcroot-no-root-linux-net10.txt 'gcroot 0x10' "$sessions; an address that is no object"
record sessions clrstack-f-sessions-linux-net10.txt 'clrstack -f' "$sessions; main thread in Thread.Sleep"
record sessions clrstack-f-all-sessions-linux-net10.txt 'clrstack -f -all' \
  "$sessions; every managed thread (helper rows with a blank IP column; no native frames on Linux)"
