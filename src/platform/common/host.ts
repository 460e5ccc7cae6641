// The one place that asks which host the harness runs on (ESLint forbids `process.platform`
// anywhere else: eslint.config.js). What differs between hosts lives in one folder per host:
// src/platform/windows/ (the harness is a Windows process: tasklist, taskkill, ConPTY, Windows
// paths) and src/platform/wine/ (a Linux process driving Windows programs through Wine: /proc,
// signals, the Wine prefix). A third host is one more folder and one more case here.
export type HostKind = 'windows' | 'wine';

/** node's platform name for this process (`win32`, `linux`, …), for messages and injection. */
export function currentPlatform(): NodeJS.Platform {
  return process.platform;
}

/** Which host folder serves `platform`: Windows itself, or a Unix host with Wine beside it. */
export function hostKind(platform: NodeJS.Platform = currentPlatform()): HostKind {
  // eslint-disable-next-line no-restricted-syntax -- the one place that names the host
  return platform === 'win32' ? 'windows' : 'wine';
}

/** Whether the harness itself runs as a Windows process. */
export function isWindowsHost(platform: NodeJS.Platform = currentPlatform()): boolean {
  return hostKind(platform) === 'windows';
}

/** True when a process with this id exists (signal 0 only checks; EPERM: exists, not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
