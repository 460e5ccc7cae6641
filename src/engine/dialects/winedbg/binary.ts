// Which winedbg to run: --debugger as given, else winedbg on PATH; a missing one is a
// DebuggerNotFoundError (exit 3) with the install hint, before anything is started: its absence
// surfaced as "spawn winedbg ENOENT" (exit 5) or as good dumps quarantined as "the debugger
// exited 2 times".
import { DebuggerNotFoundError } from '../../../errors.js';
import { findOnPath } from '../../../platform/index.js';

export function winedbgFile(env: NodeJS.ProcessEnv, debuggerPath?: string): string {
  if (debuggerPath !== undefined) return debuggerPath;
  const found = findOnPath('winedbg', env);
  if (found !== undefined) return found;
  throw new DebuggerNotFoundError(
    'winedbg was not found on PATH. It comes with Wine: on Debian/Ubuntu `apt-get install wine wine64 libwine` ' +
      '(scripts/install-system-deps.sh), or give its path with --debugger. ' +
      'For dumps, --engine builtin needs no debugger.',
  );
}
