// MemoryList (5): count then 16-byte {Start u64, DataSize u32, Rva u32}, each range with its own
// file offset. Memory64List (9): {count u64, BaseRva u64} then 16-byte {Start u64, Size u64}, whose
// bytes lie back to back from BaseRva in descriptor order (minidumpapiset.h). Both become captured ranges
// here; any part whose bytes are not in the file is cut off (a truncated full dump keeps what is
// readable) and reported.
//
// The ranges are kept as columns of typed arrays, not one object per range: Wine writes ~4,600
// tiny ranges per minidump, and an object with a BigInt start for each made parsing, sorting and
// the garbage they left behind most of the cost of inspecting a dump. A start is stored as two
// u32 halves, so no BigInt is created while parsing and every u64 stays exact.
import { safeNumber, u64, uninitializedBuffer } from '../bytes.js';
import { oldStyleList, type StreamContext } from '../stream-context.js';

export type RangeSource = 'MemoryList' | 'Memory64List';

export interface CapturedRange {
  start: bigint;
  /** Bytes present in the file for this range (may be less than the writer declared). */
  size: number;
  /** File offset of the first byte. */
  fileOffset: number;
  source: RangeSource;
}

/** `RangeColumns.source` codes, indexing this list. */
export const RANGE_SOURCES: readonly RangeSource[] = ['MemoryList', 'Memory64List'];

/** Captured ranges, column-wise: entry i is {startHi[i]·2^32 + startLo[i], size[i], …}. */
export interface RangeColumns {
  count: number;
  startHi: Uint32Array;
  startLo: Uint32Array;
  /** Bytes present in the file (> 0). */
  size: Float64Array;
  fileOffset: Float64Array;
  /** Index into RANGE_SOURCES. */
  source: Uint8Array;
}

/**
 * Empty columns with room for `capacity` ranges, carved from one buffer (one allocation, not
 * zeroed: entries at and past `count` are never read).
 */
export function allocRangeColumns(capacity: number): RangeColumns {
  // 8-byte columns first, so every view is aligned.
  const buffer = uninitializedBuffer(capacity * 25);
  return {
    count: 0,
    size: new Float64Array(buffer, 0, capacity),
    fileOffset: new Float64Array(buffer, capacity * 8, capacity),
    startHi: new Uint32Array(buffer, capacity * 16, capacity),
    startLo: new Uint32Array(buffer, capacity * 20, capacity),
    source: new Uint8Array(buffer, capacity * 24, capacity),
  };
}

/**
 * Columns for `capacity` ranges in a work space reused from dump to dump (up to
 * SCRATCH_KEEP ranges; more get their own). Only for columns that are consumed before the
 * caller awaits anything (captured-memory.ts parses a MemoryList and merges it in one
 * synchronous step, and the merge copies what it keeps): the next dump's parse overwrites them.
 * Saves a Wine minidump 115 KB of short-lived memory outside the JS heap, which only a full
 * garbage collection returns.
 */
export function scratchRangeColumns(capacity: number): RangeColumns {
  if (capacity > SCRATCH_KEEP) return allocRangeColumns(capacity);
  if (scratch === undefined || scratch.size.length < capacity) {
    scratch = allocRangeColumns(Math.max(1024, 2 ** Math.ceil(Math.log2(Math.max(1, capacity)))));
  }
  scratch.count = 0;
  return scratch;
}

const SCRATCH_KEEP = 1 << 16;
let scratch: RangeColumns | undefined;

export interface MemoryListResult {
  ranges: RangeColumns;
  /** Bytes the descriptors declare. */
  declaredBytes: number;
  /** Declared bytes that are not in the file. */
  missingBytes: number;
}

const MEMORY_LIST = 0;
const MEMORY64_LIST = 1;

/** `columns` makes the result's columns (default: a fresh allocation). */
export function parseMemoryList(
  ctx: StreamContext,
  columns: (capacity: number) => RangeColumns = allocRangeColumns,
): MemoryListResult {
  const { offset, count, entrySize } = oldStyleList(ctx, 16);
  const { data, fileSize } = ctx;
  // oldStyleList clamped count to what the stream holds, so every read below is in bounds.
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const out = columns(count);
  const { startHi, startLo, size: sizes, fileOffset, source } = out;
  let n = 0;
  let declaredBytes = 0;
  let missingBytes = 0;
  let badRanges = 0;
  for (let i = 0, at = offset; i < count; i++, at += entrySize) {
    const size = view.getUint32(at + 8, true);
    const rva = view.getUint32(at + 12, true);
    declaredBytes += size;
    const present = Math.max(0, Math.min(size, fileSize - rva));
    if (present < size) {
      missingBytes += size - present;
      badRanges++;
    }
    if (present > 0) {
      startLo[n] = view.getUint32(at, true);
      startHi[n] = view.getUint32(at + 4, true);
      sizes[n] = present;
      fileOffset[n] = rva;
      source[n] = MEMORY_LIST;
      n++;
    }
  }
  out.count = n;
  if (badRanges > 0) {
    ctx.warn(
      `MemoryList: ${badRanges} range(s) point past the end of the file; ${missingBytes} bytes of captured memory are missing`,
    );
  }
  return { ranges: out, declaredBytes, missingBytes };
}

export function parseMemory64List(ctx: StreamContext): MemoryListResult {
  const { data, info } = ctx;
  if (data.length < 16) {
    ctx.warn(`Memory64List: ${data.length}-byte stream is too short for its header`);
    return { ranges: allocRangeColumns(0), declaredBytes: 0, missingBytes: 0 };
  }
  const claimed = u64(data, 0);
  const fits = Math.floor((data.length - 16) / 16);
  let count = claimed > BigInt(fits) ? fits : Number(claimed);
  if (BigInt(count) < claimed) {
    ctx.warn(
      `${info.name}: claims ${claimed} ranges but its ${data.length} bytes hold only ${fits}; reading ${fits}`,
    );
  }
  const baseRva = safeNumber(u64(data, 8));
  if (baseRva === undefined || baseRva > ctx.fileSize) {
    ctx.warn(
      `Memory64List: BaseRva ${u64(data, 8)} is past the end of the ${ctx.fileSize}-byte file; no memory is readable`,
    );
    count = 0;
  }
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const out = allocRangeColumns(count);
  const { startHi, startLo, size: sizes, fileOffset, source } = out;
  let n = 0;
  let cursor = baseRva ?? 0;
  let declaredBytes = 0;
  let missingBytes = 0;
  let overflow = false;
  for (let i = 0, at = 16; i < count; i++, at += 16) {
    const sizeHi = view.getUint32(at + 12, true);
    // A size at or past 2^53 is no real size; the sum check below catches the rest.
    const declared = sizeHi < 0x200000 ? sizeHi * 0x1_0000_0000 + view.getUint32(at + 8, true) : -1;
    if (declared < 0 || cursor + declared > Number.MAX_SAFE_INTEGER) {
      overflow = true;
      break;
    }
    declaredBytes += declared;
    const present = Math.max(0, Math.min(declared, ctx.fileSize - cursor));
    missingBytes += declared - present;
    if (present > 0) {
      startLo[n] = view.getUint32(at, true);
      startHi[n] = view.getUint32(at + 4, true);
      sizes[n] = present;
      fileOffset[n] = cursor;
      source[n] = MEMORY64_LIST;
      n++;
    }
    cursor += declared;
  }
  out.count = n;
  if (overflow)
    ctx.warn('Memory64List: a range size is absurd (past 2^53 bytes); later ranges ignored');
  if (missingBytes > 0) {
    ctx.warn(
      `Memory64List: the file ends before the captured memory does: ${missingBytes} of ${declaredBytes} bytes are missing (truncated full dump); the readable part is kept`,
    );
  }
  return { ranges: out, declaredBytes, missingBytes };
}
