// The Windows helpers the harness itself runs beside the target (native/NAME/NAME.c, built with
// mingw by scripts/build-native.sh into build/native/NAME.exe): where one is, and how it is run on
// this host: as it is on Windows, through `wine` with the target's environment (so the same
// prefix and wineserver) on Linux.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageInfo } from '../../package-info.js';
import { hostKind } from './host.js';

/** `$envVar` when set, else the package's build/native/NAME.exe; whether it is there. */
export function nativeHelperPath(
  name: string,
  envVar: string,
  env: NodeJS.ProcessEnv,
): { path: string; exists: boolean } {
  const path = env[envVar] ?? join(packageInfo().root, 'build', 'native', `${name}.exe`);
  return { path, exists: existsSync(path) };
}

/** The command line that runs the Windows program `exe` with `args` on this host. */
export function nativeHelperCommand(
  exe: string,
  args: readonly string[],
  platform?: NodeJS.Platform,
): { file: string; args: string[] } {
  return hostKind(platform) === 'windows'
    ? { file: exe, args: [...args] }
    : { file: 'wine', args: [exe, ...args] };
}
