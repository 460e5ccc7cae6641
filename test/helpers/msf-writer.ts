// Writes an MSF 7.0 file (a PDB container) from stream contents, after the documented layout
// (https://llvm.org/docs/PDB/MsfFile.html): superblock in block 0, the two free-page-map blocks
// at 1 and 2 of every 4096-block interval, stream blocks, the stream directory and its block map.
// Used by the benchmark to pad a real lld PDB with a big extra stream (interleaved between the
// real streams, so the real data is spread over the whole file as in a big linked PDB).
import { closeSync, openSync, writeSync } from 'node:fs';
import { MSF_MAGIC } from '../../src/symbols/msf.js';

const BLOCK = 4096;

export interface WriteMsfOptions {
  /** Padding bytes written as one extra stream, split in chunks between the given streams. */
  paddingBytes?: number;
  /**
   * Edits the block lists (index = stream) before the directory is written: hostile files for
   * reader tests (a stream sharing another's blocks, a block listed twice).
   */
  editBlockLists?: (lists: number[][]) => void;
}

/** Writes `streams` (index = stream number) to `path`; returns the file size. */
export function writeMsf(
  path: string,
  streams: readonly Buffer[],
  options: WriteMsfOptions = {},
): number {
  const fd = openSync(path, 'w');
  let next = 3; // 0 superblock, 1-2 free page map
  const isFpm = (b: number) => b % BLOCK === 1 || b % BLOCK === 2;
  const allocate = () => {
    while (isFpm(next)) next++;
    return next++;
  };
  const writeBlock = (block: number, bytes: Buffer) => {
    const page = Buffer.alloc(BLOCK);
    bytes.copy(page, 0, 0, Math.min(BLOCK, bytes.length));
    writeSync(fd, page, 0, BLOCK, block * BLOCK);
  };
  const padding = options.paddingBytes ?? 0;
  const padBlocksTotal = Math.ceil(padding / BLOCK);
  const padPerGap = Math.ceil(padBlocksTotal / Math.max(1, streams.length));
  const padBlocks: number[] = [];
  const noise = Buffer.alloc(BLOCK, 0x5a);
  const lists: number[][] = [];
  const writeStream = (data: Buffer) => {
    const list: number[] = [];
    for (let at = 0; at < data.length; at += BLOCK) {
      const block = allocate();
      writeBlock(block, data.subarray(at, at + BLOCK));
      list.push(block);
    }
    return list;
  };
  try {
    for (const data of streams) {
      lists.push(writeStream(data));
      for (let i = 0; i < padPerGap && padBlocks.length < padBlocksTotal; i++) {
        const block = allocate();
        writeBlock(block, noise);
        padBlocks.push(block);
      }
    }
    options.editBlockLists?.(lists);
    const sizes = [...streams.map((s) => s.length)];
    if (padding > 0) {
      sizes.push(padding);
      lists.push(padBlocks);
    }
    const dir = Buffer.alloc(4 + sizes.length * 4 + lists.reduce((n, l) => n + l.length * 4, 0));
    dir.writeUInt32LE(sizes.length, 0);
    sizes.forEach((size, i) => dir.writeUInt32LE(size, 4 + i * 4));
    let at = 4 + sizes.length * 4;
    for (const list of lists) for (const block of list) at = dir.writeUInt32LE(block, at);
    const dirBlocks = writeStream(dir);
    const map = Buffer.alloc(dirBlocks.length * 4);
    dirBlocks.forEach((b, i) => map.writeUInt32LE(b, i * 4));
    const mapBlock = allocate();
    writeBlock(mapBlock, map);
    // Free page maps: all used (a zero bit is "in use"); one pair per 4096-block interval.
    const numBlocks = next;
    for (let b = 1; b < numBlocks; b += BLOCK) {
      writeBlock(b, Buffer.alloc(BLOCK));
      if (b + 1 < numBlocks) writeBlock(b + 1, Buffer.alloc(BLOCK));
    }
    const head = Buffer.alloc(BLOCK);
    MSF_MAGIC.copy(head, 0);
    head.writeUInt32LE(BLOCK, 32);
    head.writeUInt32LE(1, 36); // FreeBlockMapBlock
    head.writeUInt32LE(numBlocks, 40);
    head.writeUInt32LE(dir.length, 44);
    head.writeUInt32LE(mapBlock, 52);
    writeBlock(0, head);
    return numBlocks * BLOCK;
  } finally {
    closeSync(fd);
  }
}
