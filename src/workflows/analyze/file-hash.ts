// sha256 of a file, streamed in 1 MiB reads: dumps can be gigabytes. The hash names records
// (`--resume`), shards (`--shard`) and raw-output folders.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { AbortedError } from '../../errors.js';

const CHUNK = 1024 * 1024;

export async function sha256File(
  path: string,
  signal?: AbortSignal,
): Promise<{ sha256: string; size: number }> {
  const handle = await open(path, 'r');
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK);
    let size = 0;
    for (;;) {
      if (signal?.aborted) throw new AbortedError(`hashing ${path} was interrupted`);
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
