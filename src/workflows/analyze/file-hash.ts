// sha256 of a file, streamed in 1 MiB reads: dumps can be gigabytes. The hash names shards
// (`--shard`) and raw-output folders; with the path and the size it is the `--resume` key.
// A small file (at most `keepUpTo` bytes) is read whole in one buffer instead and handed back,
// so the dump reader works from it rather than opening and reading the file a second time.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AbortedError, failureCause, IoError } from '../../errors.js';
import { pathText, type BytePath } from '../../common/byte-path.js';
import { fileKind, openRegularFile } from '../../minidump/file-reader.js';
import { pathsIgnoreCase } from '../../platform/index.js';

const CHUNK = 1024 * 1024;

/**
 * The largest dump hashed and analysed by default (`--max-dump-size`): a sparse 100 GB file once
 * kept `analyze` hashing for more than 400 s. Full dumps of large servers can be tens of GB.
 */
export const DEFAULT_MAX_DUMP_BYTES = 64 * 1024 ** 3;

export interface HashedFile {
  sha256: string;
  size: number;
  /** The whole file, when it was no bigger than `keepUpTo`. */
  bytes?: Buffer;
}

export async function sha256File(
  path: BytePath,
  signal?: AbortSignal,
  options: { keepUpTo?: number; maxBytes?: number } = {},
): Promise<HashedFile> {
  if (signal?.aborted) throw new AbortedError(`hashing ${pathText(path)} was interrupted`);
  const keepUpTo = options.keepUpTo ?? -1;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DUMP_BYTES;
  const small = keepUpTo >= 0 ? readSmallFile(path, Math.min(keepUpTo, maxBytes)) : undefined;
  if (small !== undefined) return small;
  // A FIFO or a device is refused here, at once: hashing /dev/zero would never end.
  const { handle, size: statSize } = await openRegularFile(path);
  try {
    if (statSize > maxBytes) {
      // Refused before a byte is read: the record says why, at once, whatever the file's size.
      throw new IoError(
        `${pathText(path)} is ${gib(statSize)}, over the ${gib(maxBytes)} --max-dump-size: not hashed or analysed (raise --max-dump-size to analyse it)`,
      );
    }
    const hash = createHash('sha256');
    let size = 0;
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      if (signal?.aborted) throw new AbortedError(`hashing ${pathText(path)} was interrupted`);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, size);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      size += bytesRead;
    }
    return { sha256: hash.digest('hex'), size };
  } finally {
    await handle.close();
  }
}

/**
 * A file of at most `keepUpTo` bytes, read whole and hashed with blocking calls: stat, open,
 * fstat, one read, close take microseconds for a dump of a few hundred KB, where the same five
 * steps through the libuv pool cost a thread hand-off each (futex and eventfd wake-ups on both
 * sides, most of this function's CPU in a batch of small dumps). Refused the same way, with the
 * same words, as openRegularFile (file-reader.ts): a FIFO or a device is never opened for
 * reading, O_NONBLOCK covers one swapped in between. `undefined` when the file is bigger (or
 * grew while it was read): the caller streams it.
 */
function readSmallFile(path: BytePath, keepUpTo: number): HashedFile | undefined {
  const shown = path.toString();
  let kind = 'missing';
  try {
    const info = statSync(path);
    kind = fileKind(info);
    if (info.isFile() && info.size > keepUpTo) return undefined;
  } catch {
    // Missing or unreachable: the open below says why.
  }
  if (kind !== 'regular file' && kind !== 'missing') {
    throw new IoError(`${shown} is not a regular file (${kind}); refused without reading it`);
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NON_BLOCKING);
  } catch (error) {
    throw new IoError(`cannot open ${shown}: ${failureCause(error)}`, { cause: error });
  }
  try {
    let statSize: number;
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) {
        throw new IoError(
          `${shown} is not a regular file (${fileKind(info)}); refused without reading it`,
        );
      }
      statSize = info.size;
    } catch (error) {
      if (error instanceof IoError) throw error;
      throw new IoError(`cannot stat ${shown}: ${failureCause(error)}`, { cause: error });
    }
    if (statSize > keepUpTo) return undefined;
    // One byte more than the stat said: filling it means the file grew since (a dump still being
    // written), and then it is streamed instead. A short read of a regular file is its end.
    const whole = Buffer.allocUnsafe(statSize + 1);
    let size = 0;
    while (size < whole.length) {
      const wanted = whole.length - size;
      const bytesRead = readSync(fd, whole, size, wanted, size);
      size += bytesRead;
      if (bytesRead < wanted) break;
    }
    if (size > statSize) return undefined;
    const bytes = whole.subarray(0, size);
    return { sha256: createHash('sha256').update(bytes).digest('hex'), size, bytes };
  } finally {
    closeSync(fd);
  }
}

/** Not defined on Windows, where no FIFO can block an open. */
const NON_BLOCKING = (constants.O_NONBLOCK as number | undefined) ?? 0;

/**
 * What `--resume` (and `--merge`) take as "this dump was already analysed": the same file (path),
 * with the same size and content. Not the hash alone: a copy of a dump under another name is its
 * own input (a user who copied it there wants it in the report) and is analysed again. Windows
 * paths compare case-insensitively. A name that is not valid UTF-8 is keyed by its exact bytes
 * (`fileBytes`): two such names can read the same as text.
 */
export function resumeKey(record: {
  file: string;
  fileBytes?: string;
  size: number;
  sha256: string;
}): string {
  const path = resolve(record.file).replace(/\\/g, '/');
  const normalized =
    record.fileBytes !== undefined
      ? `bytes:${record.fileBytes}`
      : pathsIgnoreCase()
        ? path.toLowerCase()
        : path;
  return `${normalized}\u0000${record.size}\u0000${record.sha256}`;
}

function gib(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${bytes} bytes`;
}
