// Where a path a dump recorded (a Windows path, usually) may be on a Linux host. Under Wine, drive Z: is the unix root and drive C: is the prefix's
// drive_c (https://wiki.winehq.org/FAQ, "What is a Wine prefix"). Symbol files and images are
// both looked for through it. The prefix is only ever the one the user names (`--wine-prefix`,
// the library's `winePrefix`), never $WINEPREFIX or ~/.wine: what those hold differs from one
// machine to the next, and an image found there changes the walk and so the crash's bucket.
import { join } from 'node:path';

/**
 * Where a recorded Windows path may be on this machine: `Z:\work\av.exe` → `/work/av.exe`;
 * `C:\windows\system32\ntdll.dll` → `<prefix>/drive_c/windows/system32/ntdll.dll` when a prefix
 * is named (else nowhere); a unix path as is.
 */
export function wineLocalPaths(recorded: string, winePrefix: string | undefined): string[] {
  // Sample recorded paths: "Z:\work\main\build\targets\av.exe", "C:\windows\system32\ntdll.dll"
  const drive = /^([A-Za-z]):[\\/](.*)$/.exec(recorded);
  if (drive === null) return recorded.startsWith('/') ? [recorded] : [];
  // Sample rest: "windows\\system32\\ntdll.dll" → [windows, system32, ntdll.dll]
  const rest = (drive[2] ?? '').split(/[\\/]+/);
  const letter = (drive[1] ?? '').toLowerCase();
  if (letter === 'z') return [`/${rest.join('/')}`];
  if (winePrefix === undefined) return [];
  const root = join(winePrefix, `drive_${letter}`);
  const exact = join(root, rest.join('/'));
  const lower = join(root, rest.join('/').toLowerCase());
  return exact === lower ? [exact] : [exact, lower];
}
