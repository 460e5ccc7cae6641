#!/usr/bin/env bash
# Builds the Windows test programs that need a real PDB (test/targets/pdb/*.c, one program per
# file that has a main, plus its `NAME-*.c` and `NAME-*.cpp` companions) with clang + lld for the mingw target:
# CodeView debug info (-gcodeview) and a PDB written by lld (--pdb). clang's mingw driver does
# not find gcc's libgcc/libgcc_eh on Debian, so the mingw-w64 gcc library folder is passed with -L.
# /pdbaltpath:%_PDB% records only the PDB's file name in the image, as release builds do, so the
# PDB is found through the symbol path and not through a path on the build machine.
# A program is built at -O0 unless its source says otherwise on a line `build-flags: FLAGS`
# (inlined.c asks for -O2, so its PDB has inline sites).
set -euo pipefail
source "$(dirname "$0")/wine-env.sh"
src="$repo_root/test/targets/pdb"
mkdir -p "$TARGETS_DIR"
if ! command -v clang >/dev/null || ! command -v ld.lld >/dev/null; then
  echo "clang/lld missing: run scripts/install-system-deps.sh (PDB test programs not built)" >&2
  exit 1
fi
gcc_lib=$(dirname "$(x86_64-w64-mingw32-gcc -print-libgcc-file-name)")
built=0
for main in "$src"/*.c; do
  name=$(basename "${main%.c}")
  case "$name" in *-*) continue ;; esac
  parts=("$main")
  for extra in "$src/$name"-*.c "$src/$name"-*.cpp; do [ -e "$extra" ] && parts+=("$extra"); done
  out="$TARGETS_DIR/$name.exe"
  fresh=1
  for part in "${parts[@]}" "$repo_root/test/targets/common.h"; do
    [ -f "$out" ] && [ "$out" -nt "$part" ] || fresh=0
  done
  [ "$fresh" = 1 ] && [ -f "$TARGETS_DIR/$name.pdb" ] && continue
  # Sample: " * build-flags: -O2 */"
  flags=$(sed -n 's/^.*build-flags: \(-[-A-Za-z0-9= ]*\).*$/\1/p' "$main" | head -1)
  # shellcheck disable=SC2086 # the flags are words
  clang --target=x86_64-w64-mingw32 ${flags:--O0} -g -gcodeview -fuse-ld=lld -L"$gcc_lib" \
    -Wl,--pdb="$TARGETS_DIR/$name.pdb" -Wl,-Xlink=-pdbaltpath:%_PDB% -o "$out" "${parts[@]}"
  built=$((built + 1))
done
echo "PDB test programs: $TARGETS_DIR ($built built)"
