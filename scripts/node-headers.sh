#!/usr/bin/env bash
# node-gyp (which builds node-pty's native part) downloads Node's headers from nodejs.org unless npm
# is pointed at a local copy; on machines with no route there the download fails, and because
# node-pty is optional, npm carries on without it and says nothing. The running node's own prefix
# ships the headers (include/node) in the official and Debian builds: point npm there for the
# commands that build native code, and for no other (npm warns `Unknown env config "nodedir"` on
# every command that sees the variable it does not need).
#
#   scripts/node-headers.sh npm ci               run ONE command with npm_config_nodedir set
#   source scripts/node-headers.sh && npm ci     in this shell, `npm ci|install|i|rebuild` get it;
#                                                nothing is exported, other npm commands are as before
_cdbh_node_headers_dir() {
  local prefix
  prefix=$(node -p "require('path').resolve(process.execPath,'../..')") || return 0
  if [ -d "$prefix/include/node" ]; then printf '%s\n' "$prefix"; fi
}

if (return 0 2>/dev/null); then
  # Sourced: a shell function scoped to the npm commands that may build node-pty.
  npm() {
    local dir=''
    case "${1:-}" in
      ci | install | i | rebuild) [ -n "${npm_config_nodedir:-}" ] || dir=$(_cdbh_node_headers_dir) ;;
    esac
    if [ -n "$dir" ]; then
      npm_config_nodedir="$dir" command npm "$@"
    else
      command npm "$@"
    fi
  }
else
  set -euo pipefail
  if [ "$#" -eq 0 ]; then
    echo "usage: scripts/node-headers.sh COMMAND [ARG...]   (e.g. scripts/node-headers.sh npm ci)" >&2
    exit 2
  fi
  if [ -z "${npm_config_nodedir:-}" ]; then
    dir=$(_cdbh_node_headers_dir)
    if [ -n "$dir" ]; then npm_config_nodedir="$dir" exec "$@"; fi
  fi
  exec "$@"
fi
