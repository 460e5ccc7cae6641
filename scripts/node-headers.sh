# Sourced by the install scripts. node-gyp (which builds node-pty) downloads Node's headers unless
# npm is pointed at a local copy; on machines with no route to nodejs.org that download fails and
# takes `npm ci` with it. The running node's own prefix ships the headers (include/node) in the
# official and Debian builds, so point npm there when they are present and npm was not already
# told otherwise.
if [ -z "${npm_config_nodedir:-}" ]; then
  _node_prefix=$(node -p "require('path').resolve(process.execPath,'../..')")
  if [ -d "$_node_prefix/include/node" ]; then
    export npm_config_nodedir="$_node_prefix"
  fi
  unset _node_prefix
fi
