// sha256 of a file, streamed in 1 MiB reads: dumps can be gigabytes. The hash names shards
// (`--shard`) and raw-output folders; with the path and the size it is the `--resume` key.
// A small file (at most `keepUpTo` bytes) is read whole in one buffer instead and handed back,
// so the dump reader works from it rather than opening and reading the file a second time.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { AbortedError } from '../../errors.js';
import { pathText, type BytePath } from '../../common/byte-path.js';
import { openRegularFile } from '../../minidump/file-reader.js';

const CHUNK = 1024 * 1024;

export async function sha256File(
  path: BytePath,
  signal?: AbortSignal,
  options: { keepUpTo?: number } = {},
): Promise<{ sha256: string; size: number; bytes?: Buffer }> {
  // A FIFO or a device is refused here, at once: hashing /dev/zero would never end.
  const { handle, size: statSize } = await openRegularFile(path);
  try {
    const hash = createHash('sha256');
    let size = 0;
    if (statSize <= (options.keepUpTo ?? -1)) {
      // One byte more than the stat said: filling it means the file grew since (a dump still
      // being written), and then the rest is streamed below and nothing is kept. A short read of
      // a regular file is its end, so a file that did not grow takes one read.
      const whole = Buffer.allocUnsafe(statSize + 1);
      while (size < whole.length) {
        if (signal?.aborted) throw new AbortedError(`hashing ${pathText(path)} was interrupted`);
        const wanted = whole.length - size;
        const { bytesRead } = await handle.read(whole, size, wanted, size);
        size += bytesRead;
        if (bytesRead < wanted) break;
      }
      hash.update(whole.subarray(0, size));
      if (size <= statSize)
        return { sha256: hash.digest('hex'), size, bytes: whole.subarray(0, size) };
    }
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
      : process.platform === 'win32'
        ? path.toLowerCase()
        : path;
  return `${normalized}\u0000${record.size}\u0000${record.sha256}`;
}
