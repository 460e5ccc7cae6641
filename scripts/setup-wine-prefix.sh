#!/usr/bin/env bash
# Creates the project's Wine prefix (about 10 s and 700 MB the first time; a no-op after).
set -euo pipefail
source "$(dirname "$0")/wine-env.sh"
if [ -f "$WINEPREFIX/system.reg" ]; then
  echo "wine prefix: $WINEPREFIX (exists)"
  exit 0
fi
mkdir -p "$WINEPREFIX"
start=$(date +%s)
wineboot -i >/dev/null 2>&1
wineserver -w
echo "wine prefix: $WINEPREFIX (created in $(($(date +%s) - start)) s)"
