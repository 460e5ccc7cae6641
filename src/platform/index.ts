// The host platform seam: everything that differs between running the harness on Windows and on
// Linux beside Wine, one function each, with one folder per host (windows/, wine/). Callers ask
// here and never look at process.platform themselves (eslint.config.js forbids it outside
// src/platform/). Implementations are loaded on first use, so a host never loads the other's.
// host.ts and types.ts live in common/, which windows/ and wine/ import: so the seam's parent folder
// and its host folders never import each other in a circle (test/engine/folder-cycles.test.ts).
import { hostKind, type HostKind } from './common/host.js';
import type { CpuSource } from './common/types.js';
import { windowsLocalPaths } from './windows/local-paths.js';
import { wineLocalPaths } from './wine/local-paths.js';

export {
  currentPlatform,
  hostKind,
  isWindowsHost,
  pidAlive,
  type HostKind,
} from './common/host.js';
export type { CpuSample, CpuSource } from './common/types.js';
export { breakInWithHelper, type BreakInOutcome } from './common/break-in.js';
export { probeCommit, type CommitProbeReading } from './common/commit-probe.js';
export { findOnPath } from './common/find-on-path.js';
export { appAliasFolder, pathsIgnoreCase, programFolders } from './common/folders.js';
export { nativeHelperCommand, nativeHelperPath } from './common/native-helper.js';

/**
 * How this host breaks into a live Windows target unless told: on Windows, DebugBreakProcess on
 * the target (native/break-in), with the console's Ctrl-C as the fallback (ConPTY may not deliver
 * it: Wine's conhost closes the pseudo console on 0x03); beside Wine, the Unix pty's Ctrl-C,
 * which Wine raises as CTRL_C_EVENT in the debugger, without a Wine process start per break.
 */
export function defaultBreakIn(platform?: NodeJS.Platform): 'debug-break' | 'ctrl-c' {
  return hostKind(platform) === 'windows' ? 'debug-break' : 'ctrl-c';
}

export interface KillTreeOptions {
  signal?: NodeJS.Signals;
  /** Give up waiting for the tree to disappear after this long. */
  deadlineMs?: number;
  /** Which host's way (tests); this process's by default. */
  platform?: NodeJS.Platform;
}

/** Ends a process and all its descendants; throws a TargetError when it cannot (Windows). */
export async function killTree(rootPid: number, options: KillTreeOptions = {}): Promise<void> {
  const host: HostKind = hostKind(options.platform);
  if (host === 'windows') {
    const { killTreeWindows } = await import('./windows/kill-tree.js');
    return killTreeWindows(rootPid, {
      ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
    });
  }
  const { killTreeUnix } = await import('./wine/kill-tree.js');
  return killTreeUnix(rootPid, options);
}

/**
 * Where the CPU time of Windows process `pid` (image `name`) is read on this host: Get-Process on
 * Windows, the Wine loader's /proc/<pid>/stat on Linux (in the prefix `env` names).
 */
export async function processCpuSource(
  pid: number,
  name: string,
  options: { env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; procRoot?: string } = {},
): Promise<CpuSource> {
  if (hostKind(options.platform) === 'windows') {
    const { windowsCpuSource } = await import('./windows/process-cpu.js');
    return windowsCpuSource(pid, options.env ?? process.env);
  }
  const { wineCpuSource } = await import('./wine/process-cpu.js');
  return wineCpuSource(pid, name, options);
}

/**
 * Where a path a dump recorded may be on this machine, most likely first: on Windows the path
 * itself; on Linux `Z:\…` is `/…` and `C:\…` is in the named Wine prefix (none unless named).
 */
export function localPaths(
  recorded: string,
  winePrefix: string | undefined,
  platform?: NodeJS.Platform,
): string[] {
  return hostKind(platform) === 'windows'
    ? windowsLocalPaths(recorded, winePrefix)
    : wineLocalPaths(recorded, winePrefix);
}

/**
 * A file only its owner may read (a dump holds the target's memory: secrets, tokens): mode 0600
 * beside Wine; on Windows the user's profile ACLs are left as they are.
 */
export async function restrictToOwner(path: string, platform?: NodeJS.Platform): Promise<void> {
  if (hostKind(platform) === 'windows') return;
  const { chmod } = await import('node:fs/promises');
  await chmod(path, 0o600).catch(() => undefined);
}
