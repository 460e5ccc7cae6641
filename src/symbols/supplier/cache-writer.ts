// How a download reaches a symbol cache without ever being whole in memory and without leaving
// half files behind: bytes stream into a `.part` file in the store's own partial folder (same
// file system, so publishing is one rename), and only a complete, accepted file is renamed into
// the store layout. A run killed mid-write leaves its `.part` there; the next run removes the
// parts of processes that are gone (or parts older than any download can last) before it writes,
// and the parts the older writer left beside their targets (`app.pdb.<pid>.<tag>.part`) too.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pidAlive } from '../../platform/common/host.js';

/** Whether a pid exists: the platform seam's (src/platform/common/host.ts). */
export { pidAlive };

/** The folder in each downstream store where downloads are written before they are published. */
export const PARTIAL_DIR = '.cdb-harness-partial';
/** A part older than this is stale whoever owns it: no download lasts an hour (deadline 60 s). */
export const STALE_PART_MS = 60 * 60 * 1000;

// Sample: "48213-9f2c1a7b.part" (the writer's pid, a random tag)
const PART_NAME = /^(\d+)-[0-9a-f]+\.part$/;
// The older scheme (before the partial folder): a part beside its target in the store layout,
// `<file>.<pid>.<base-36 tag>.part`. Sample: "app.pdb.48213.k3j2h1x9q.part"
const OLD_PART_NAME = /^.+\.(\d+)\.[0-9a-z]+\.part$/;
/** Made in the partial folder once a store holds no old-scheme part: later runs skip the walk. */
export const OLD_PARTS_SWEPT = 'old-parts-swept';
/** Folder levels of the store layout walked for old parts: name/id/ (or two-tier xy/name/id/). */
const OLD_PART_DEPTH = 3;
/** Entries looked at by one walk at most (a store of millions is left for a later run). */
const OLD_PART_WALK_LIMIT = 200_000;

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
  let removed = await removeOldSchemeParts(store, now);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = PART_NAME.exec(name);
    if (m === null) continue;
    if (await removeIfStale(join(dir, name), Number(m[1]), now)) removed++;
  }
  return removed;
}

/**
 * The older writer's parts (`<file>.<pid>.<tag>.part` beside the target, in the store layout):
 * nothing writes them any more, so once a walk of the layout finds none left (the stale ones
 * removed, no live old run's kept) a marker in the partial folder says so and later runs skip
 * the walk. A store that cannot take the marker (read-only) is walked again next run.
 */
async function removeOldSchemeParts(store: string, now: number): Promise<number> {
  const marker = join(store, PARTIAL_DIR, OLD_PARTS_SWEPT);
  if ((await stat(marker).catch(() => undefined)) !== undefined) return 0;
  let removed = 0;
  let kept = 0;
  let seen = 0;
  const pending: { dir: string; depth: number }[] = [{ dir: store, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const entries = await readdir(next.dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > OLD_PART_WALK_LIMIT) return removed;
      const path = join(next.dir, entry.name);
      if (entry.isDirectory()) {
        if (next.depth < OLD_PART_DEPTH && entry.name !== PARTIAL_DIR) {
          pending.push({ dir: path, depth: next.depth + 1 });
        }
        continue;
      }
      const m = next.depth === 0 || !entry.isFile() ? null : OLD_PART_NAME.exec(entry.name);
      if (m === null) continue;
      if (await removeIfStale(path, Number(m[1]), now)) removed++;
      else kept++;
    }
  }
  if (kept === 0) {
    // An empty folder, not a file: the cache holds no byte that is not a symbol file.
    await mkdir(marker, { recursive: true }).catch(() => undefined);
  }
  return removed;
}

/** Removes a part whose writer is gone, or that is older than any download lasts. */
async function removeIfStale(path: string, pid: number, now: number): Promise<boolean> {
  let stale = pid !== process.pid && !pidAlive(pid);
  if (!stale) {
    const info = await stat(path).catch(() => undefined);
    stale = info !== undefined && now - info.mtimeMs > STALE_PART_MS;
  }
  if (stale) await rm(path, { force: true });
  return stale;
}
