// Builds small synthetic minidumps byte by byte, for the streams Wine's writers never emit
// (CodeView records, MiscInfo v5, thread names, handles, memory info, comments, VM counters,
// unloaded modules). Layout: header, directory, then an append-only area; strings and other
// referenced data are appended first so their RVAs are known when a stream is composed.

export class DumpBuilder {
  readonly #chunks: Buffer[] = [];
  readonly #directory: { type: number; size: number; rva: number }[] = [];
  readonly #streamCount: number;
  #offset: number;

  constructor(streamCount: number) {
    this.#streamCount = streamCount;
    this.#offset = 32 + 12 * streamCount;
  }

  /** Appends raw bytes (4-aligned) and returns their RVA. */
  append(bytes: Buffer): number {
    const pad = (4 - (this.#offset % 4)) % 4;
    if (pad > 0) {
      this.#chunks.push(Buffer.alloc(pad));
      this.#offset += pad;
    }
    const rva = this.#offset;
    this.#chunks.push(bytes);
    this.#offset += bytes.length;
    return rva;
  }

  /** A MINIDUMP_STRING (length in bytes, UTF-16LE, NUL) and its RVA. */
  string(text: string): number {
    const body = Buffer.from(`${text}\0`, 'utf16le');
    const out = Buffer.alloc(4 + body.length);
    out.writeUInt32LE(body.length - 2, 0);
    body.copy(out, 4);
    return this.append(out);
  }

  stream(type: number, data: Buffer): this {
    const rva = this.append(data);
    this.#directory.push({ type, size: data.length, rva });
    return this;
  }

  /** Current end of the file: where the next appended bytes will go (before alignment). */
  get end(): number {
    return this.#offset;
  }

  build(options: { flags?: bigint; timestamp?: number; version?: number } = {}): Buffer {
    const header = Buffer.alloc(32);
    header.writeUInt32LE(0x504d444d, 0);
    header.writeUInt32LE(options.version ?? 0xa793, 4);
    header.writeUInt32LE(this.#streamCount, 8);
    header.writeUInt32LE(32, 12);
    header.writeUInt32LE(options.timestamp ?? 1_700_000_000, 20);
    header.writeBigUInt64LE(options.flags ?? 0n, 24);
    const directory = Buffer.alloc(12 * this.#streamCount);
    this.#directory.forEach((entry, i) => {
      directory.writeUInt32LE(entry.type, i * 12);
      directory.writeUInt32LE(entry.size, i * 12 + 4);
      directory.writeUInt32LE(entry.rva, i * 12 + 8);
    });
    return Buffer.concat([header, directory, ...this.#chunks]);
  }
}

/** A struct buffer with little-endian writers, for composing stream records. */
export function struct(size: number, fill: (b: Buffer) => void): Buffer {
  const buf = Buffer.alloc(size);
  fill(buf);
  return buf;
}

/** One MINIDUMP_MEMORY_INFO (minidumpapiset.h): state MEM_COMMIT/RESERVE, type default MEM_PRIVATE. */
export interface BuiltRegion {
  base: bigint;
  allocationBase: bigint;
  size: bigint;
  state: number;
  type?: number;
}

/** A MemoryInfoList (16) stream body: 16-byte header, 48-byte entries, PAGE_READWRITE. */
export function memoryInfoList(regions: readonly BuiltRegion[]): Buffer {
  const info = Buffer.alloc(16 + 48 * regions.length);
  info.writeUInt32LE(16, 0);
  info.writeUInt32LE(48, 4);
  info.writeBigUInt64LE(BigInt(regions.length), 8);
  regions.forEach((r, i) => {
    info.writeBigUInt64LE(r.base, 16 + 48 * i);
    info.writeBigUInt64LE(r.allocationBase, 24 + 48 * i);
    info.writeBigUInt64LE(r.size, 40 + 48 * i);
    info.writeUInt32LE(r.state, 48 + 48 * i);
    info.writeUInt32LE(0x04, 52 + 48 * i);
    info.writeUInt32LE(r.type ?? 0x20000, 56 + 48 * i);
  });
  return info;
}

/**
 * Adds a Memory64List (9) whose ranges are `pages` (address, bytes), appended one after another:
 * call the returned function on the built dump to write the list (the RVAs are known only then).
 */
export function memory64List(
  b: DumpBuilder,
  pages: readonly (readonly [bigint, Buffer])[],
): (dump: Buffer) => void {
  const listRva = b.end + ((4 - (b.end % 4)) % 4);
  b.stream(9, Buffer.alloc(16 + 16 * pages.length));
  const rvas = pages.map(([, bytes]) => b.append(bytes));
  return (dump) => {
    dump.writeBigUInt64LE(BigInt(pages.length), listRva);
    dump.writeBigUInt64LE(BigInt(rvas[0] ?? 0), listRva + 8);
    pages.forEach(([address, bytes], i) => {
      dump.writeBigUInt64LE(address, listRva + 16 + 16 * i);
      dump.writeBigUInt64LE(BigInt(bytes.length), listRva + 24 + 16 * i);
    });
  };
}
