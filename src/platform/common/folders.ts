// Where this host keeps things the harness looks for: Windows' program folders and the per-user
// app alias folder (none beside Wine: a Linux host's programs are not in Windows folders), and
// whether its paths compare without case.
import { win32 } from 'node:path';
import { hostKind } from './host.js';

/** `ProgramFiles(x86)` then `ProgramFiles` on Windows (no duplicates); none beside Wine. */
export function programFolders(env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): string[] {
  if (hostKind(platform) !== 'windows') return [];
  const roots = [env['ProgramFiles(x86)'], env['ProgramFiles']].filter(
    (root): root is string => root !== undefined && root.length > 0,
  );
  return [...new Set(roots)];
}

/**
 * %LOCALAPPDATA%\Microsoft\WindowsApps, where Store apps put their command aliases (WinDbg's
 * `cdbX64.exe`), on Windows; undefined beside Wine.
 */
export function appAliasFolder(
  env: NodeJS.ProcessEnv,
  platform?: NodeJS.Platform,
): string | undefined {
  const localAppData = env['LOCALAPPDATA'];
  if (hostKind(platform) !== 'windows' || localAppData === undefined || localAppData === '')
    return undefined;
  return win32.join(localAppData, 'Microsoft', 'WindowsApps');
}

/** Windows file names compare without case (C:\Dumps\a.dmp is c:\dumps\A.DMP). */
export function pathsIgnoreCase(platform?: NodeJS.Platform): boolean {
  return hostKind(platform) === 'windows';
}
