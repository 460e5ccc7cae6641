// An ELF core on disk read by elf-core.ts: opened only if it is a regular file (a FIFO or a device
// is refused before it can block or run forever: minidump/file-reader.ts openRegularFile), read
// with positioned reads, closed. The one place that opens a core to say what it is, for analyze,
// dump's read-back and heap-trend's pid of a core.
import type { BytePath } from '../../../common/byte-path.js';
import { openRegularFile } from '../../../minidump/file-reader.js';
import { readElfCore, type ElfCoreReading } from './elf-core.js';

export async function readElfCoreFile(path: BytePath): Promise<ElfCoreReading> {
  const { handle, size } = await openRegularFile(path);
  try {
    return await readElfCore(async (offset, length) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    }, size);
  } finally {
    await handle.close();
  }
}
