#!/usr/bin/env bash
# Installs the Debian packages the tests need, when they are missing: Wine (winedbg), the mingw
# cross compilers for the Windows test programs, Chromium for the HTML report checks and Redis for
# the job queue tests.
# Needs root (apt-get); as another user it prints the command to run instead.
set -euo pipefail

need=()
command -v wine >/dev/null || need+=(wine)
command -v winedbg >/dev/null || need+=(wine)
[ -x /usr/lib/wine/wine64 ] || need+=(wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
command -v x86_64-w64-mingw32-g++ >/dev/null || need+=(g++-mingw-w64-x86-64)
command -v chromium >/dev/null || need+=(chromium)
# clang + lld build the test programs that need a real PDB (scripts/build-pdb-targets.sh).
command -v clang >/dev/null || need+=(clang)
command -v ld.lld >/dev/null || need+=(lld)
# llvm-pdbutil is the independent PDB reader the symbol tests check ours against.
command -v llvm-pdbutil >/dev/null || need+=(llvm)
# gcab makes (and cabextract checks) MSZIP cabinets for the compressed-symbol (.pd_) tests.
command -v gcab >/dev/null || need+=(gcab)
command -v cabextract >/dev/null || need+=(cabextract)
# Xvfb gives Wine a display for the hung-window test (dump -h): windows need an X server.
command -v Xvfb >/dev/null || need+=(xvfb)
# redis-server backs the BullMQ job queue tests (analyze --queue, the worker command).
command -v redis-server >/dev/null || need+=(redis-server)

if [ ${#need[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing packages: ${need[*]}" >&2
  echo "Run as root: apt-get update && apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "installing: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" wine wine64 libwine >/dev/null
echo "system packages: installed ${need[*]}"
