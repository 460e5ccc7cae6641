// umdh.exe and gflags.exe ship with "Debugging Tools for Windows", next to cdb.exe. They exist only
// on Windows: on Linux the harness says so plainly instead of trying Wine (Wine has no stack-trace
// database, no IFEO GlobalFlag handling, and no umdh).
import { existsSync } from 'node:fs';
import { win32 } from 'node:path';
import { cdbCandidates } from '../engine/dialects/cdb/locate.js';
import { DebuggerNotFoundError } from '../errors.js';
import { currentPlatform, isWindowsHost } from '../platform/index.js';

export type WindowsTool = 'umdh' | 'gflags';

export interface ToolLookup {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  exists?: (path: string) => boolean;
}

const ENV_NAMES: Record<WindowsTool, string> = { umdh: 'UMDH_PATH', gflags: 'GFLAGS_PATH' };

export function windowsOnlyMessage(tool: WindowsTool): string {
  const what =
    tool === 'umdh'
      ? 'umdh.exe (allocation-stack snapshots of the NT heap)'
      : 'gflags.exe (image global flags such as +ust, the stack-trace database)';
  return (
    `${what} exists only on Windows; it is part of "Debugging Tools for Windows" (Windows SDK). ` +
    `This machine runs ${currentPlatform()}, where heap-trend uses the winedbg committed-memory ` +
    `view instead. Nothing was done.`
  );
}

/** Full path of umdh.exe / gflags.exe: UMDH_PATH / GFLAGS_PATH, then next to every cdb.exe candidate. */
export function locateWindowsTool(tool: WindowsTool, lookup: ToolLookup = {}): string {
  const env = lookup.env ?? process.env;
  const platform = lookup.platform ?? currentPlatform();
  const exists = lookup.exists ?? existsSync;
  const fromEnv = env[ENV_NAMES[tool]];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (!isWindowsHost(platform)) throw new DebuggerNotFoundError(windowsOnlyMessage(tool));
  const candidates = cdbCandidates(env, platform)
    .filter((path) => /cdb(?:X64)?\.exe$/i.test(path) && !/WindowsApps/i.test(path))
    .map((cdb) => win32.join(win32.dirname(cdb), `${tool}.exe`));
  const found = candidates.find((path) => exists(path));
  if (found !== undefined) return found;
  throw new DebuggerNotFoundError(
    [
      `${tool}.exe was not found. Install "Debugging Tools for Windows" (Windows SDK) or set ${ENV_NAMES[tool]}.`,
      'Looked in:',
      ...candidates.map((path) => `  ${path}`),
      ...(candidates.length === 0 ? ['  (no Debugging Tools for Windows folder is known)'] : []),
    ].join('\n'),
  );
}
