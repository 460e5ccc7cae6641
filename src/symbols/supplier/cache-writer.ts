// How a download reaches a symbol cache without ever being whole in memory and without leaving
// half files behind: bytes stream into a `.part` file in the store's own partial folder (same
// file system, so publishing is one rename), and only a complete, accepted file is renamed into
// the store layout. A run killed mid-write leaves its `.part` there; the next run removes the
// parts of processes that are gone (or parts older than any download can last) before it writes.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The folder in each downstream store where downloads are written before they are published. */
export const PARTIAL_DIR = '.cdb-harness-partial';
/** A part older than this is stale whoever owns it: no download lasts an hour (deadline 60 s). */
export const STALE_PART_MS = 60 * 60 * 1000;

// Sample: "48213-9f2c1a7b.part" (the writer's pid, a random tag)
const PART_NAME = /^(\d+)-[0-9a-f]+\.part$/;

export interface PartFile {
  readonly path: string;
  write(chunk: Uint8Array): Promise<void>;
  /** Closes the file (keeps it, for publish or a second pass). */
  close(): Promise<void>;
  /** Closes and deletes it (a rejected or failed download). */
  discard(): Promise<void>;
}

/** A new `.part` file in `store`'s partial folder. */
export async function openPart(store: string): Promise<PartFile> {
  const dir = join(store, PARTIAL_DIR);
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.part`);
  const handle: FileHandle = await open(path, 'wx');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return {
    path,
    async write(chunk) {
      let done = 0;
      while (done < chunk.byteLength) {
        const { bytesWritten } = await handle.write(chunk, done, chunk.byteLength - done);
        done += bytesWritten;
      }
    },
    close,
    async discard() {
      await close().catch(() => undefined);
      await rm(path, { force: true });
    },
  };
}

/** Renames a complete part to its place in the store layout (made as needed). */
export async function publish(part: string, target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  await rename(part, target);
}

/** Copies a published file into another store, through a part there (never a half file). */
export async function copyIntoStore(source: string, store: string, target: string): Promise<void> {
  const part = await openPart(store);
  await part.close();
  try {
    await copyFile(source, part.path);
    await publish(part.path, target);
  } catch (error) {
    await rm(part.path, { force: true });
    throw error;
  }
}

/**
 * Removes `.part` files of `store` left by processes that are gone, or older than STALE_PART_MS
 * (a pid reused since). Parts of live processes (a parallel run) stay. Returns how many went.
 */
export async function removeStaleParts(store: string, now = Date.now()): Promise<number> {
  const dir = join(store, PARTIAL_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = PART_NAME.exec(name);
    if (m === null) continue;
    const pid = Number(m[1]);
    const path = join(dir, name);
    let stale = pid !== process.pid && !pidAlive(pid);
    if (!stale) {
      const info = await stat(path).catch(() => undefined);
      stale = info !== undefined && now - info.mtimeMs > STALE_PART_MS;
    }
    if (stale) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
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
