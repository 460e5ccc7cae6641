// The `--out` folder of an analyze run, held by one run at a time. Two runs appending to one
// records.ndjson doubled every record and the second crashed on the first's temp files; a lock
// file created exclusively (O_EXCL: a planted link or file makes the create fail, nothing is
// followed) refuses the second run with the first one's pid. A lock left by a run that died is
// taken over when its pid is gone on this host; one from another host is left to the user.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { UsageError } from '../../errors.js';

export const LOCK_FILE = '.cdb-harness.lock';

export class OutDirLock {
  #held = false;

  constructor(readonly dir: string) {}

  get path(): string {
    return join(this.dir, LOCK_FILE);
  }

  /** Makes the folder and takes its lock (UsageError when another run holds it). */
  async take(): Promise<void> {
    await makeOutDir(this.dir);
    for (let tries = 0; tries < 2; tries++) {
      try {
        const handle = await open(this.path, 'wx', 0o644);
        try {
          await handle.writeFile(`${process.pid} ${hostname()}\n`);
        } finally {
          await handle.close();
        }
        this.#held = true;
        return;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
      }
      const owner = await readFile(this.path, 'utf8').catch(() => '');
      // Sample: "48213 build-07"
      const [pidText = '', host = ''] = owner.trim().split(' ');
      const pid = Number(pidText);
      const stale = host === hostname() && Number.isInteger(pid) && pid > 0 && !alive(pid);
      if (!stale) {
        throw new UsageError(
          `--out ${this.dir} is in use by another analyze run (${owner.trim() === '' ? 'lock file without owner' : `pid ${pidText} on ${host}`}): wait for it, pick another --out, or remove ${this.path} if no run is writing there`,
        );
      }
      await rm(this.path, { force: true });
    }
    throw new UsageError(`--out ${this.dir}: could not take ${this.path}`);
  }

  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    await rm(this.path, { force: true });
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/** `--out DIR`, made if missing; a file in the way is said plainly, not as a raw EEXIST. */
export async function makeOutDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new UsageError(
        `--out ${dir}: a file is in the way (--out wants a folder, new or from an earlier run)`,
        { cause: error },
      );
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new UsageError(`--out ${dir}: permission denied (${code}); pick another --out`, {
        cause: error,
      });
    }
    throw error;
  }
}
