#!/usr/bin/env bash
# Builds the Windows helpers the harness itself runs on the target's host (not test programs):
# native/*/NAME.c with mingw into build/native/NAME.exe (only what changed): window-probe.exe,
# which `dump -h` runs each poll to ask the target's windows whether they answer, and
# break-in.exe, which interrupt() runs on Windows to break into a live target (DebugBreakProcess),
# and commit-probe.exe, which reads a process's commit from outside for `dump -m` when the
# debugger has no !address (VirtualQueryEx).
set -euo pipefail
source "$(dirname "$0")/wine-env.sh"
out_dir="${CDB_HARNESS_NATIVE_DIR:-$repo_root/build/native}"
mkdir -p "$out_dir"
built=0
for file in "$repo_root"/native/*/*.c; do
  [ -e "$file" ] || continue
  name=$(basename "${file%.c}")
  out="$out_dir/$name.exe"
  if [ -f "$out" ] && [ "$out" -nt "$file" ]; then continue; fi
  x86_64-w64-mingw32-gcc -O1 -Wall -Wextra -o "$out" "$file" -luser32
  built=$((built + 1))
done
echo "native helpers: $out_dir ($built built)"
