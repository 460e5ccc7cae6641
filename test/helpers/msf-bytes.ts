// Raw edits of an MSF (PDB 7.0) file for corruption tests, straight from the documented layout
// (https://llvm.org/docs/PDB/MsfFile.html): superblock fields, the stream directory (found through
// the block map) and stream bytes. Independent of src/symbols on purpose.

export interface MsfLayout {
  blockSize: number;
  numBlocks: number;
  dirBlocks: number[];
  streamSizes: number[];
  streamBlocks: number[][];
  /** File offset of directory byte `at`. */
  dirOffset(at: number): number;
  /** File offset of byte `at` of stream `s`. */
  streamOffset(s: number, at: number): number;
}

export function msfLayout(b: Buffer): MsfLayout {
  const blockSize = b.readUInt32LE(32);
  const numBlocks = b.readUInt32LE(40);
  const dirBytes = b.readUInt32LE(44);
  const mapAt = b.readUInt32LE(52) * blockSize;
  const dirBlocks = Array.from({ length: Math.ceil(dirBytes / blockSize) }, (_, i) =>
    b.readUInt32LE(mapAt + i * 4),
  );
  const dirOffset = (at: number) =>
    (dirBlocks[Math.floor(at / blockSize)] ?? 0) * blockSize + (at % blockSize);
  const u32 = (at: number) => b.readUInt32LE(dirOffset(at));
  const count = u32(0);
  const streamSizes = Array.from({ length: count }, (_, i) => u32(4 + i * 4));
  const streamBlocks: number[][] = [];
  let at = 4 + count * 4;
  for (const raw of streamSizes) {
    const size = raw === 0xffffffff ? 0 : raw;
    const n = Math.ceil(size / blockSize);
    streamBlocks.push(Array.from({ length: n }, (_, i) => u32(at + i * 4)));
    at += n * 4;
  }
  return {
    blockSize,
    numBlocks,
    dirBlocks,
    streamSizes,
    streamBlocks,
    dirOffset,
    streamOffset: (s, pos) =>
      (streamBlocks[s]?.[Math.floor(pos / blockSize)] ?? 0) * blockSize + (pos % blockSize),
  };
}

/** Directory offset of stream s's entry in the block lists (its first block number). */
export function blockListOffset(layout: MsfLayout, s: number): number {
  let at = 4 + layout.streamSizes.length * 4;
  for (let i = 0; i < s; i++) {
    const size = layout.streamSizes[i] === 0xffffffff ? 0 : (layout.streamSizes[i] ?? 0);
    at += Math.ceil(size / layout.blockSize) * 4;
  }
  return at;
}
