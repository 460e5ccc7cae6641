// The Multi-Stream File container every PDB 7.0 is: a superblock, fixed-size blocks, and a stream
// directory saying which blocks make up each stream. Layout after LLVM's description
// (https://llvm.org/docs/PDB/MsfFile.html). A PDB can be hundreds of MB, so only the superblock,
// the directory and the blocks a caller asks for are ever read; everything read is checked first,
// because a corrupt file must end in a BadSymbolsError, never in a huge allocation or a loop.
import { BadSymbolsError } from '../errors.js';
import type { ByteSource } from './byte-source.js';

/** "Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0": the first 32 bytes of a PDB 7.0. */
export const MSF_MAGIC = Buffer.from('Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0', 'latin1');
const SUPERBLOCK_SIZE = 56;
const BLOCK_SIZES = new Set([512, 1024, 2048, 4096, 8192, 16384, 32768]);
/** A stream size of 0xFFFFFFFF marks a deleted (nil) stream. */
const NIL_STREAM = 0xffffffff;
/** Far more streams than any linker writes (one per module plus a few dozen). */
const MAX_STREAMS = 1 << 20;
/** Blocks kept in memory per file: enough for the hot DBI/publics pages of a lookup batch. */
const DEFAULT_CACHE_BLOCKS = 1024;

export interface MsfSuperBlock {
  blockSize: number;
  numBlocks: number;
  numDirectoryBytes: number;
  blockMapAddr: number;
}

export class MsfFile {
  readonly name: string;
  readonly superBlock: MsfSuperBlock;
  readonly #source: ByteSource;
  readonly #sizes: number[];
  readonly #blocks: Uint32Array[];
  /** Streams whose block list is unsound (a cycle, blocks of another stream), with the reason. */
  readonly #bad: Map<number, string>;
  readonly #cache = new Map<number, Promise<Buffer>>();
  readonly #maxCached: number;

  private constructor(
    name: string,
    source: ByteSource,
    sb: MsfSuperBlock,
    sizes: number[],
    blocks: Uint32Array[],
    bad: Map<number, string>,
    maxCached: number,
  ) {
    this.#bad = bad;
    this.name = name;
    this.#source = source;
    this.superBlock = sb;
    this.#sizes = sizes;
    this.#blocks = blocks;
    this.#maxCached = maxCached;
  }

  /** Reads and checks the superblock and the stream directory. `name` is for messages. */
  static async open(
    source: ByteSource,
    name: string,
    options: { cacheBlocks?: number } = {},
  ): Promise<MsfFile> {
    const refuse = (why: string) => new BadSymbolsError(name, `${name}: not a usable PDB: ${why}`);
    if (source.size < SUPERBLOCK_SIZE) throw refuse(`only ${source.size} bytes`);
    const head = await source.read(0, SUPERBLOCK_SIZE);
    if (head.length < SUPERBLOCK_SIZE) throw refuse('the superblock is cut short');
    if (!head.subarray(0, 32).equals(MSF_MAGIC)) {
      throw refuse(
        head.subarray(0, 19).toString('latin1') === 'Microsoft C/C++ pro'
          ? 'a PDB 2.0 file (only PDB 7.0 is read)'
          : 'no MSF 7.00 signature',
      );
    }
    const sb: MsfSuperBlock = {
      blockSize: head.readUInt32LE(32),
      numBlocks: head.readUInt32LE(40),
      numDirectoryBytes: head.readUInt32LE(44),
      blockMapAddr: head.readUInt32LE(52),
    };
    const { blockSize, numBlocks, numDirectoryBytes, blockMapAddr } = sb;
    if (!BLOCK_SIZES.has(blockSize)) throw refuse(`block size ${blockSize} is not a power of two`);
    if (numBlocks === 0 || numBlocks * blockSize > source.size) {
      throw refuse(
        `${numBlocks} blocks of ${blockSize} bytes do not fit in ${source.size} bytes (truncated?)`,
      );
    }
    if (numDirectoryBytes < 4 || numDirectoryBytes > numBlocks * blockSize) {
      throw refuse(`a stream directory of ${numDirectoryBytes} bytes`);
    }
    const dirBlockCount = Math.ceil(numDirectoryBytes / blockSize);
    if (dirBlockCount * 4 > blockSize) throw refuse('the directory block map overflows its block');
    if (blockMapAddr === 0 || blockMapAddr >= numBlocks) {
      throw refuse(`directory block map at block ${blockMapAddr} of ${numBlocks}`);
    }
    const mapBytes = await source.read(blockMapAddr * blockSize, dirBlockCount * 4);
    const dirBlocks = new Uint32Array(dirBlockCount);
    const seen = new Set<number>();
    for (let i = 0; i < dirBlockCount; i++) {
      const block = mapBytes.readUInt32LE(i * 4);
      if (block === 0 || block >= numBlocks)
        throw refuse(`directory block ${block} is out of range`);
      if (seen.has(block)) throw refuse(`directory block ${block} is listed twice (a cycle)`);
      seen.add(block);
      dirBlocks[i] = block;
    }
    const dir = await readBlocks(source, dirBlocks, blockSize, 0, numDirectoryBytes);
    const numStreams = dir.readUInt32LE(0);
    if (numStreams > MAX_STREAMS || 4 + numStreams * 4 > dir.length) {
      throw refuse(`the directory claims ${numStreams} streams`);
    }
    const sizes: number[] = [];
    const blocks: Uint32Array[] = [];
    // Which stream owns each block: a block claimed twice (within one stream: a cycle; by two
    // streams: one is read as the other) makes the later stream unreadable, with the reason, and
    // the streams read at open (info, DBI) fail the file. Others cost only what they hold.
    const owner = new Int32Array(numBlocks).fill(-1);
    const bad = new Map<number, string>();
    let at = 4 + numStreams * 4;
    for (let s = 0; s < numStreams; s++) {
      const raw = dir.readUInt32LE(4 + s * 4);
      const size = raw === NIL_STREAM ? 0 : raw;
      if (size > numBlocks * blockSize) throw refuse(`stream ${s} claims ${size} bytes`);
      const count = Math.ceil(size / blockSize);
      if (at + count * 4 > dir.length) throw refuse(`the block list of stream ${s} is cut short`);
      const list = new Uint32Array(count);
      for (let i = 0; i < count; i++) {
        const block = dir.readUInt32LE(at + i * 4);
        if (block >= numBlocks) throw refuse(`stream ${s} names block ${block} of ${numBlocks}`);
        const first = owner[block] ?? -1;
        if (first === s && !bad.has(s)) {
          bad.set(s, `stream ${s} lists block ${block} twice (a cycle)`);
        } else if (first !== -1 && first !== s && !bad.has(s)) {
          bad.set(s, `stream ${s} shares block ${block} with stream ${first}`);
        }
        owner[block] = s;
        list[i] = block;
      }
      at += count * 4;
      sizes.push(size);
      blocks.push(list);
    }
    return new MsfFile(
      name,
      source,
      sb,
      sizes,
      blocks,
      bad,
      options.cacheBlocks ?? DEFAULT_CACHE_BLOCKS,
    );
  }

  get streamCount(): number {
    return this.#sizes.length;
  }

  /** Why stream `index` cannot be read (its block list repeats a block or shares one), if so. */
  streamProblem(index: number): string | undefined {
    return this.#bad.get(index);
  }

  /** Size of stream `index` in bytes (0 for nil or missing streams). */
  streamSize(index: number): number {
    return this.#sizes[index] ?? 0;
  }

  /**
   * `length` bytes of stream `index` from `offset`; a BadSymbolsError when the range is not in
   * the stream (the caller's structure claimed more than the stream has).
   */
  async readStream(index: number, offset: number, length: number, what: string): Promise<Buffer> {
    const size = this.streamSize(index);
    if (offset < 0 || length < 0 || offset + length > size || !Number.isSafeInteger(length)) {
      throw new BadSymbolsError(
        this.name,
        `${this.name}: ${what} (${length} bytes at ${offset}) is outside stream ${index} (${size} bytes)`,
      );
    }
    const problem = this.#bad.get(index);
    if (problem !== undefined) {
      throw new BadSymbolsError(this.name, `${this.name}: not a usable PDB: ${problem}`);
    }
    if (length === 0) return Buffer.alloc(0);
    const bs = this.superBlock.blockSize;
    const first = Math.floor(offset / bs);
    const last = Math.floor((offset + length - 1) / bs);
    const list = this.#blocks[index] ?? new Uint32Array(0);
    if (first === last) {
      const block = await this.#block(list[first] ?? 0);
      const from = offset - first * bs;
      return block.subarray(from, from + length);
    }
    if (last - first + 1 > 2) {
      // Big reads (a whole module stream, read once and parsed) go straight to the source,
      // one read per run of adjacent blocks; the block cache is for the small hot reads.
      return readBlocks(this.#source, list, bs, offset, length);
    }
    const parts = await Promise.all(
      Array.from({ length: last - first + 1 }, (_, i) => this.#block(list[first + i] ?? 0)),
    );
    return Buffer.concat(parts).subarray(offset - first * bs, offset - first * bs + length);
  }

  /** A whole stream. */
  readWholeStream(index: number, what: string): Promise<Buffer> {
    return this.readStream(index, 0, this.streamSize(index), what);
  }

  #block(block: number): Promise<Buffer> {
    const hit = this.#cache.get(block);
    if (hit) {
      this.#cache.delete(block);
      this.#cache.set(block, hit);
      return hit;
    }
    const bs = this.superBlock.blockSize;
    const loading = this.#source.read(block * bs, bs).then((b) => {
      if (b.length < bs)
        throw new BadSymbolsError(this.name, `${this.name}: block ${block} is cut short`);
      return b;
    });
    loading.catch(() => this.#cache.delete(block));
    this.#cache.set(block, loading);
    if (this.#cache.size > this.#maxCached) {
      const oldest = this.#cache.keys().next();
      if (oldest.done !== true) this.#cache.delete(oldest.value);
    }
    return loading;
  }
}

/** Bytes [offset, offset+length) of the block list, one source read per run of adjacent blocks. */
async function readBlocks(
  source: ByteSource,
  list: Uint32Array,
  blockSize: number,
  offset: number,
  length: number,
): Promise<Buffer> {
  const out = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const pos = offset + done;
    const index = Math.floor(pos / blockSize);
    const within = pos - index * blockSize;
    let runEnd = index + 1;
    while (
      runEnd < list.length &&
      list[runEnd] === (list[runEnd - 1] ?? 0) + 1 &&
      (runEnd - index) * blockSize - within < length - done
    ) {
      runEnd++;
    }
    const want = Math.min(length - done, (runEnd - index) * blockSize - within);
    const bytes = await source.read((list[index] ?? 0) * blockSize + within, want);
    if (bytes.length < want)
      throw new BadSymbolsError('', `a stream runs past the end of the file`);
    bytes.copy(out, done);
    done += want;
  }
  return out;
}
