// The dump file on disk: reserved before the debugger writes it, watched while it grows, kept or
// set aside afterwards. Dumps hold the target's memory (secrets, tokens), so the file exists with mode 0600 BEFORE
// the debugger opens it: both cdb (`.dump /o`) and winedbg (`minidump`, CreateFile CREATE_ALWAYS
// under Wine) truncate an existing file and keep its mode, so the contents are never readable by
// others, not even for the milliseconds a chmod afterwards would leave open.
import { constants } from 'node:fs';
import { chmod, mkdir, open, rename, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { failureCause, IoError } from '../../errors.js';
import { numberedName } from './dump-name.js';

export const DUMP_FILE_MODE = 0o600;
export const DUMP_DIR_MODE = 0o700;

/** Creates `dir` (owner-only when new) and checks it is a writable directory. */
export async function ensureOutDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: DUMP_DIR_MODE });
    const info = await stat(dir);
    if (!info.isDirectory()) throw new IoError(`--out ${dir} is not a directory`);
  } catch (error) {
    if (error instanceof IoError) throw error;
    throw new IoError(`cannot create the output directory ${dir}: ${failureCause(error)}`, {
      cause: error,
    });
  }
}

/**
 * Creates an empty owner-only file for the dump. Without `overwrite` an existing name is never
 * reused: `numbered` picks `x_2.dmp`, `x_3.dmp`… instead, otherwise the call fails.
 */
export async function reserveDumpFile(
  dir: string,
  name: string,
  options: { overwrite?: boolean; numbered?: boolean } = {},
): Promise<string> {
  for (let n = 1; n <= 1000; n++) {
    const path = join(dir, numberedName(name, n));
    const flags =
      options.overwrite === true
        ? constants.O_CREAT | constants.O_WRONLY | constants.O_TRUNC
        : constants.O_CREAT | constants.O_WRONLY | constants.O_EXCL;
    try {
      const handle = await open(path, flags, DUMP_FILE_MODE);
      await handle.close();
      // O_TRUNC on an existing file keeps its old mode: set it.
      await chmod(path, DUMP_FILE_MODE);
      return path;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && options.numbered === true) continue;
      if (code === 'EEXIST') {
        throw new IoError(`${path} already exists; pass --overwrite to replace it`, {
          cause: error,
        });
      }
      throw new IoError(`cannot create the dump file ${path}: ${failureCause(error)}`, {
        cause: error,
      });
    }
  }
  throw new IoError(`no free dump file name like ${name} in ${dir}`);
}

/** Bytes on disk, or 0 when the file is missing. */
export async function fileBytes(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/**
 * A failed or unverified write: keep the bytes for a post-mortem as `<path>.partial` (owner-only),
 * or remove an empty file. Returns the new path, or null when nothing is left.
 */
export async function setAsidePartial(path: string): Promise<string | null> {
  const bytes = await fileBytes(path);
  if (bytes === 0) {
    await rm(path, { force: true });
    return null;
  }
  const partial = `${path}.partial`;
  try {
    await rename(path, partial);
    await chmod(partial, DUMP_FILE_MODE);
    return partial;
  } catch {
    await rm(path, { force: true });
    return null;
  }
}

/** Free bytes for an unprivileged writer on the filesystem holding `dir`, or null if unknown. */
export async function freeBytes(dir: string): Promise<number | null> {
  try {
    const info = await statfs(dir);
    return Number(info.bavail) * Number(info.bsize);
  } catch {
    return null;
  }
}

export interface WriteProgress {
  bytes: number;
  elapsedMs: number;
  /** Bytes per second since the write began. */
  bytesPerSecond: number;
}

/**
 * Polls the file's size while a write runs and reports growth. Returns a stop function that
 * clears the timer (always call it: a forgotten interval keeps the process alive).
 */
export function watchFileGrowth(
  path: string,
  onProgress: (progress: WriteProgress) => void,
  intervalMs = 250,
): () => void {
  const startedAt = performance.now();
  let last = -1;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void fileBytes(path).then((bytes) => {
      busy = false;
      if (bytes === last) return;
      last = bytes;
      const elapsedMs = performance.now() - startedAt;
      onProgress({
        bytes,
        elapsedMs,
        bytesPerSecond: elapsedMs > 0 ? (bytes * 1000) / elapsedMs : 0,
      });
    });
  }, intervalMs);
  return () => clearInterval(timer);
}
