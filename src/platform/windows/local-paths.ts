// Where a path a dump recorded may be when the harness is a Windows process: where it says.
// `C:\windows\system32\ntdll.dll` is that file on this machine (mapping it into a Wine prefix, as
// a Linux host does, made every system DLL "not found" on Windows). A named Wine prefix (a copy
// of a Wine machine's drive_c) is still looked in after it.
import { wineLocalPaths } from '../wine/local-paths.js';

export function windowsLocalPaths(recorded: string, winePrefix: string | undefined): string[] {
  // Sample recorded paths: "C:\windows\system32\ntdll.dll", "Z:\work\main\build\targets\av.exe"
  if (!/^[A-Za-z]:[\\/]/.test(recorded)) return [];
  if (winePrefix === undefined) return [recorded];
  return [recorded, ...wineLocalPaths(recorded, winePrefix).filter((path) => path !== recorded)];
}
