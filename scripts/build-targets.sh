#!/usr/bin/env bash
# Builds the Windows test programs from test/targets/*.c and *.cpp with mingw into
# build/targets/*.exe (only what changed). C++ is linked -static: Wine has no libstdc++ DLLs.
set -euo pipefail
source "$(dirname "$0")/wine-env.sh"
src="$repo_root/test/targets"
mkdir -p "$TARGETS_DIR"
flags=(-O1 -g -gdwarf-4 -Wall -Wno-unused-function)
built=0
for file in "$src"/*.c "$src"/*.cpp; do
  [ -e "$file" ] || continue
  name=$(basename "${file%.*}")
  out="$TARGETS_DIR/$name.exe"
  if [ -f "$out" ] && [ "$out" -nt "$file" ] && [ "$out" -nt "$src/common.h" ]; then continue; fi
  case "$file" in
    *.cpp) x86_64-w64-mingw32-g++ "${flags[@]}" -static -o "$out" "$file" -ldbghelp -lpsapi ;;
    *) x86_64-w64-mingw32-gcc "${flags[@]}" -o "$out" "$file" -ldbghelp -lpsapi ;;
  esac
  built=$((built + 1))
done
echo "test programs: $TARGETS_DIR ($built built, $(ls "$TARGETS_DIR" | wc -l) in all)"
