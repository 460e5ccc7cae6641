# Sourced by the other scripts: where the project's Wine prefix and built test programs live,
# and the environment every Wine call here uses (no display, no Wine debug noise, no Mono/Gecko
# installer prompts). Tests read the same values from test/helpers/wine-env.ts.
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export WINEPREFIX="${CDB_HARNESS_WINEPREFIX:-$repo_root/.wine}"
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
export TARGETS_DIR="${CDB_HARNESS_TARGETS_DIR:-$repo_root/build/targets}"
unset DISPLAY
