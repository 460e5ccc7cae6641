// A debugger is given its dump on a command line, and a command line is text: a dump whose name
// is not valid UTF-8 (common/byte-path.ts) cannot be named to cdb or winedbg as it is. It is
// handed over through a symbolic link with a plain name in the run's output folder, removed (with
// its folder, once empty) when the debugger is done with it.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir, symlink } from 'node:fs/promises';
import { resolve, join } from 'node:path';
import type { BytePath } from '../../common/byte-path.js';

/** Where the links live under `--out`, only while a debugger has them open. */
export const BYTE_NAME_LINKS = '.byte-name-links';

export interface DebuggerDumpPath {
  /** Text the debugger can be given. */
  path: string;
  release(): Promise<void>;
}

export async function debuggerDumpPath(
  path: BytePath,
  sha256: string,
  outDir: string,
): Promise<DebuggerDumpPath> {
  if (typeof path === 'string') return { path, release: () => Promise.resolve() };
  const dir = resolve(outDir, BYTE_NAME_LINKS);
  await mkdir(dir, { recursive: true });
  const link = join(dir, `${sha256.slice(0, 16)}-${randomBytes(4).toString('hex')}.dmp`);
  await symlink(path, link);
  return {
    path: link,
    async release() {
      await rm(link, { force: true });
      await rmdir(dir).catch(() => undefined); // another dump's link may still be there
    },
  };
}
