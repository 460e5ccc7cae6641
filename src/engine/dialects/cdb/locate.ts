// Finds cdb.exe: CDB_PATH, then the Windows SDK "Debugging Tools for Windows" folders, then the
// WinDbg Store alias (the order mcp-windbg searches, https://github.com/svnscha/mcp-windbg).
// Platform, environment and the
// existence check are injectable so the search is testable on Linux.
import { existsSync } from 'node:fs';
import { win32 } from 'node:path';
import { DebuggerNotFoundError } from '../../../errors.js';
import { appAliasFolder, currentPlatform, programFolders } from '../../../platform/index.js';

export function cdbCandidates(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  const candidates: string[] = [];
  const fromEnv = env['CDB_PATH'];
  if (fromEnv !== undefined && fromEnv.length > 0) candidates.push(fromEnv);
  const arches = process.arch === 'ia32' ? ['x86', 'x64'] : ['x64', 'x86'];
  // Windows' program folders; none beside Wine (src/platform/common/folders.ts).
  for (const root of programFolders(env, platform)) {
    for (const arch of arches) {
      candidates.push(win32.join(root, 'Windows Kits', '10', 'Debuggers', arch, 'cdb.exe'));
    }
  }
  const aliases = appAliasFolder(env, platform);
  if (aliases !== undefined) candidates.push(win32.join(aliases, 'cdbX64.exe'));
  return candidates;
}

/** The first cdb.exe that exists, or undefined (for `--engine auto`). */
export function findCdb(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = currentPlatform(),
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  return cdbCandidates(env, platform).find((path) => exists(path));
}

export function locateCdb(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = currentPlatform(),
  exists: (path: string) => boolean = existsSync,
): string {
  const found = findCdb(env, platform, exists);
  if (found !== undefined) return found;
  const candidates = cdbCandidates(env, platform);
  const looked =
    candidates.length === 0
      ? '  (nowhere: CDB_PATH is not set and this is not Windows)'
      : candidates.map((path) => `  ${path}`).join('\n');
  throw new DebuggerNotFoundError(
    [
      'cdb.exe was not found. Install it with the Windows SDK ("Debugging Tools for Windows"',
      'feature), or install WinDbg from the Microsoft Store, or set CDB_PATH to the full path of',
      'cdb.exe. On Linux use --engine winedbg (Wine) or, for dumps, --engine builtin (no debugger).',
      'Looked in:',
      looked,
    ].join('\n'),
  );
}
