// Records of the TPI (stream 2) and IPI (stream 4) streams by type index, read lazily: the
// stream header, then the hash stream's index-offset buffer (every ~8 KB of records, the index
// and offset of one), so finding one record reads one stretch of the stream, never the whole of
// it (an IPI can be hundreds of MB). Layouts: https://llvm.org/docs/PDB/TpiStream.html and
// https://llvm.org/docs/PDB/CodeViewTypes.html (LF_FUNC_ID, LF_MFUNC_ID, LF_STRING_ID, LF_CLASS).
// Bad bytes give no name (undefined), never an exception: a name is a nicety of an inline frame.
import type { MsfFile } from './msf.js';

export const TPI_STREAM = 2;
export const IPI_STREAM = 4;
const HEADER_SIZE = 56;
/** A stretch read to find one record when the index-offset buffer gives no closer start. */
const MAX_STRETCH = 1 << 20;
/** Stretches kept per stream (each ≤ MAX_STRETCH, usually ~8 KB). */
const MAX_CACHED = 32;

const LF_FUNC_ID = 0x1601;
const LF_MFUNC_ID = 0x1602;
const LF_STRING_ID = 0x1605;
const LF_CLASS = 0x1504;
const LF_STRUCTURE = 0x1505;
const LF_UNION = 0x1506;
const LF_INTERFACE = 0x1519;

export interface TypeRecord {
  kind: number;
  /** The record's bytes after its kind. */
  data: Buffer;
}

export class TypeStream {
  readonly #msf: MsfFile;
  readonly #stream: number;
  readonly #begin: number;
  readonly #end: number;
  readonly #recordsAt: number;
  readonly #recordBytes: number;
  /** Index-offset pairs (sorted by index), offsets from the first record. */
  readonly #indices: Uint32Array;
  readonly #offsets: Uint32Array;
  readonly #stretches = new Map<number, Promise<Map<number, TypeRecord>>>();

  private constructor(
    msf: MsfFile,
    stream: number,
    header: { begin: number; end: number; recordsAt: number; recordBytes: number },
    pairs: { indices: Uint32Array; offsets: Uint32Array },
  ) {
    this.#msf = msf;
    this.#stream = stream;
    this.#begin = header.begin;
    this.#end = header.end;
    this.#recordsAt = header.recordsAt;
    this.#recordBytes = header.recordBytes;
    this.#indices = pairs.indices;
    this.#offsets = pairs.offsets;
  }

  /** The stream's reader, or undefined when it has no usable header. */
  static async open(msf: MsfFile, stream: number): Promise<TypeStream | undefined> {
    const size = msf.streamSize(stream);
    if (size < HEADER_SIZE) return undefined;
    const h = await msf.readStream(stream, 0, HEADER_SIZE, 'type stream header');
    const recordsAt = h.readUInt32LE(4);
    const begin = h.readUInt32LE(8);
    const end = h.readUInt32LE(12);
    const recordBytes = h.readUInt32LE(16);
    if (recordsAt < HEADER_SIZE || recordsAt + recordBytes > size || begin > end) return undefined;
    const hashStream = h.readUInt16LE(20);
    const pairsAt = h.readInt32LE(40);
    const pairsLength = h.readUInt32LE(44);
    let pairs = { indices: new Uint32Array(0), offsets: new Uint32Array(0) };
    // The buffer is optional for a reader: without it, records are found from the first one.
    if (
      hashStream !== 0xffff &&
      pairsAt >= 0 &&
      pairsLength % 8 === 0 &&
      pairsLength <= 16 << 20 &&
      pairsAt + pairsLength <= msf.streamSize(hashStream)
    ) {
      const bytes = await msf.readStream(hashStream, pairsAt, pairsLength, 'type index offsets');
      const count = pairsLength / 8;
      const indices = new Uint32Array(count);
      const offsets = new Uint32Array(count);
      for (let i = 0; i < count; i++) {
        indices[i] = bytes.readUInt32LE(i * 8);
        offsets[i] = bytes.readUInt32LE(i * 8 + 4);
      }
      pairs = { indices, offsets };
    }
    return new TypeStream(msf, stream, { begin, end, recordsAt, recordBytes }, pairs);
  }

  /** The record of `index`, or undefined (out of range, or bytes that do not parse). */
  async record(index: number): Promise<TypeRecord | undefined> {
    if (index < this.#begin || index >= this.#end) return undefined;
    // The last pair at or below `index` (pairs are sorted; a bad buffer only costs a longer read).
    let lo = 0;
    let hi = this.#indices.length - 1;
    let pick = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#indices[mid] ?? 0) <= index) {
        pick = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const startIndex = pick < 0 ? this.#begin : (this.#indices[pick] ?? this.#begin);
    const startOffset = pick < 0 ? 0 : (this.#offsets[pick] ?? 0);
    const endOffset =
      pick + 1 < this.#offsets.length ? (this.#offsets[pick + 1] ?? 0) : this.#recordBytes;
    if (startOffset >= this.#recordBytes) return undefined;
    let stretch = this.#stretches.get(startIndex);
    if (stretch === undefined) {
      const length = Math.min(
        Math.max(endOffset - startOffset, 0) || this.#recordBytes - startOffset,
        this.#recordBytes - startOffset,
        MAX_STRETCH,
      );
      stretch = this.#readStretch(startIndex, startOffset, length);
      stretch.catch(() => this.#stretches.delete(startIndex));
      if (this.#stretches.size >= MAX_CACHED) this.#stretches.clear();
      this.#stretches.set(startIndex, stretch);
    }
    return (await stretch).get(index);
  }

  async #readStretch(
    firstIndex: number,
    offset: number,
    length: number,
  ): Promise<Map<number, TypeRecord>> {
    const bytes = await this.#msf.readStream(
      this.#stream,
      this.#recordsAt + offset,
      length,
      'type records',
    );
    const out = new Map<number, TypeRecord>();
    let at = 0;
    let index = firstIndex;
    while (at + 4 <= bytes.length) {
      const size = bytes.readUInt16LE(at);
      if (size < 2 || at + 2 + size > bytes.length) break;
      out.set(index, {
        kind: bytes.readUInt16LE(at + 2),
        data: bytes.subarray(at + 4, at + 2 + size),
      });
      at += 2 + size;
      index++;
    }
    return out;
  }
}

/**
 * The name of an inlined function as debuggers show it: LF_FUNC_ID's name after its scope
 * (an LF_STRING_ID, `ns::`), LF_MFUNC_ID's after its class (`Class::`, from the TPI).
 */
export async function functionIdName(
  ids: TypeStream,
  types: TypeStream | undefined,
  id: number,
): Promise<string | undefined> {
  const record = await ids.record(id);
  if (record === undefined || record.data.length < 9) return undefined;
  if (record.kind !== LF_FUNC_ID && record.kind !== LF_MFUNC_ID) return undefined;
  const name = cString(record.data, 8);
  if (name === undefined) return undefined;
  const scopeIndex = record.data.readUInt32LE(0);
  if (scopeIndex === 0) return name;
  const scope =
    record.kind === LF_FUNC_ID
      ? await stringId(ids, scopeIndex)
      : types === undefined
        ? undefined
        : await className(types, scopeIndex);
  return scope === undefined || scope === '' ? name : `${scope}::${name}`;
}

async function stringId(ids: TypeStream, index: number): Promise<string | undefined> {
  const record = await ids.record(index);
  if (record?.kind !== LF_STRING_ID || record.data.length < 5) return undefined;
  return cString(record.data, 4);
}

async function className(types: TypeStream, index: number): Promise<string | undefined> {
  const record = await types.record(index);
  if (record === undefined) return undefined;
  const kind = record.kind;
  // LF_CLASS / LF_STRUCTURE / LF_INTERFACE: count, properties, field list, derived, vshape
  // (16 bytes); LF_UNION: count, properties, field list (8 bytes); then the size as a numeric
  // leaf, then the name.
  const at =
    kind === LF_CLASS || kind === LF_STRUCTURE || kind === LF_INTERFACE
      ? 16
      : kind === LF_UNION
        ? 8
        : -1;
  if (at < 0 || record.data.length < at + 2) return undefined;
  const skip = numericLeafSize(record.data, at);
  return skip === undefined ? undefined : cString(record.data, at + skip);
}

/** Bytes taken by the numeric leaf at `at` (CodeViewTypes.html "Numeric Leaves"). */
function numericLeafSize(data: Buffer, at: number): number | undefined {
  const leaf = data.readUInt16LE(at);
  if (leaf < 0x8000) return 2;
  const sizes: Record<number, number> = {
    0x8000: 1, // LF_CHAR
    0x8001: 2, // LF_SHORT
    0x8002: 2, // LF_USHORT
    0x8003: 4, // LF_LONG
    0x8004: 4, // LF_ULONG
    0x8009: 8, // LF_QUADWORD
    0x800a: 8, // LF_UQUADWORD
  };
  const size = sizes[leaf];
  return size === undefined ? undefined : 2 + size;
}

function cString(data: Buffer, at: number): string | undefined {
  const end = data.indexOf(0, at);
  if (end < 0 || at > data.length) return undefined;
  return data.toString('utf8', at, end);
}
