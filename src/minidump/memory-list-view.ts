// The usual MemoryList, read where it lies: when every range's bytes are in the file, every start
// is below 2^52 and no two ranges overlap (every Wine and MiniDumpWriteDump minidump seen so
// far), the merged map is nothing but the descriptors in address order. Then the map needs no
// sorted copy of its ~4,600 ranges (115 KB of columns a dump, written once and mostly never
// read): it keeps the stream's bytes and the stretches of capture order that are in address
// order (range-order.ts mergeRuns), and a lookup searches those. Anything else (a range cut by
// the end of the file, an empty one, an overlap, a high or sign-extended address) gets undefined
// here and takes memory-map.ts's merge, which trims and counts what this one refuses.
import { mergeRuns, workSpace } from './range-order.js';
import type { StreamContext } from './stream-context.js';

const TWO_32 = 0x1_0000_0000;
/** Starts below 2^52 (high halves below 2^20): start + size (< 2^32) is exact as a double. */
const FAST_HI_LIMIT = 2 ** 20;
const ENTRY = 16;

/** Descriptors {Start u64, DataSize u32, Rva u32} (minidumpapiset.h MINIDUMP_MEMORY_DESCRIPTOR). */
export class MemoryListView {
  /** Ranges, all of them kept. */
  readonly count: number;
  readonly totalBytes: number;
  readonly #view: DataView;
  /** Stream offset of descriptor 0. */
  readonly #offset: number;
  /** Stretch s is descriptors lo[s]..hi[s]-1; the first of them is range first[s] in order. */
  readonly #lo: Int32Array;
  readonly #hi: Int32Array;
  readonly #first: Int32Array;

  constructor(
    view: DataView,
    offset: number,
    count: number,
    totalBytes: number,
    stretches: { lo: Int32Array; hi: Int32Array },
  ) {
    this.#view = view;
    this.#offset = offset;
    this.count = count;
    this.totalBytes = totalBytes;
    const { lo, hi } = stretches;
    this.#lo = lo;
    this.#hi = hi;
    this.#first = new Int32Array(lo.length);
    let position = 0;
    for (let s = 0; s < lo.length; s++) {
      this.#first[s] = position;
      position += (hi[s] ?? 0) - (lo[s] ?? 0);
    }
  }

  /** Start of the range at `position` in address order. */
  start(position: number): number {
    return this.#startOf(this.#descriptor(position));
  }

  size(position: number): number {
    return this.#view.getUint32(this.#offset + this.#descriptor(position) * ENTRY + 8, true);
  }

  fileOffset(position: number): number {
    return this.#view.getUint32(this.#offset + this.#descriptor(position) * ENTRY + 12, true);
  }

  /** Position of the range holding `at` (an address below 2^53), or -1. */
  find(at: number): number {
    // The last stretch starting at or below `at`, then its last range starting at or below it.
    const lo = this.#lo;
    let low = 0;
    let high = lo.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (this.#startOf(lo[mid] ?? 0) <= at) low = mid + 1;
      else high = mid - 1;
    }
    const s = high;
    if (s < 0) return -1;
    const base = lo[s] ?? 0;
    low = base;
    high = (this.#hi[s] ?? 0) - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (this.#startOf(mid) <= at) low = mid + 1;
      else high = mid - 1;
    }
    const at0 = this.#offset + high * ENTRY;
    const end = this.#startOf(high) + this.#view.getUint32(at0 + 8, true);
    return at < end ? (this.#first[s] ?? 0) + high - base : -1;
  }

  #startOf(descriptor: number): number {
    const at = this.#offset + descriptor * ENTRY;
    return this.#view.getUint32(at + 4, true) * TWO_32 + this.#view.getUint32(at, true);
  }

  /** The descriptor at `position` in address order. */
  #descriptor(position: number): number {
    const first = this.#first;
    let low = 0;
    let high = first.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if ((first[mid] ?? 0) <= position) low = mid + 1;
      else high = mid - 1;
    }
    return (this.#lo[high] ?? 0) + position - (first[high] ?? 0);
  }
}

/**
 * The MemoryList stream as a view, or undefined when it is not the simple case above (or its
 * count is not whole in the stream: stream-context.ts oldStyleList then warns, on the other path).
 * Warns about nothing: whatever there is to say, the other path says.
 */
export function memoryListView(ctx: StreamContext): MemoryListView | undefined {
  const { data, fileSize, info } = ctx;
  if (data.length < 4) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const claimed = view.getUint32(0, true);
  // stream-context.ts oldStyleList's layout: writers that pad the count make DataSize 8 + n·16.
  const offset = info.size === 8 + claimed * ENTRY && claimed > 0 ? 8 : 4;
  const count = claimed;
  if (count === 0 || offset + count * ENTRY > data.length) return undefined;
  const space = workSpace(count);
  const { starts, sizes } = space;
  // Where each sorted run begins, then `count` (mergeRuns' bounds); in order means by start.
  const runs = [0];
  let prev = -1;
  let prevEnd = 0;
  let total = 0;
  for (let i = 0, at = offset; i < count; i++, at += ENTRY) {
    const high = view.getUint32(at + 4, true);
    const size = view.getUint32(at + 8, true);
    const rva = view.getUint32(at + 12, true);
    if (high >= FAST_HI_LIMIT || size === 0 || size > fileSize - rva) return undefined;
    const start = high * TWO_32 + view.getUint32(at, true);
    if (start < prev) runs.push(i);
    // Within a run, a range starting before the previous one ends overlaps it.
    else if (start < prevEnd) return undefined;
    starts[i] = start;
    sizes[i] = size;
    prev = start;
    prevEnd = start + size;
    total += size;
  }
  // Every partial sum was an exact integer below this, so the order of the additions is moot.
  if (total > Number.MAX_SAFE_INTEGER) return undefined;
  runs.push(count);
  const stretches = mergeRuns(count, starts, sizes, runs, space);
  // Inside a stretch, ranges follow each other in their run (checked above); between two
  // stretches, the first range of the later one must start at or after the earlier one's end.
  const { lo, hi } = space;
  for (let s = 1; s < stretches; s++) {
    const last = (hi[s - 1] ?? 0) - 1;
    if ((starts[lo[s] ?? 0] ?? 0) < (starts[last] ?? 0) + (sizes[last] ?? 0)) return undefined;
  }
  return new MemoryListView(view, offset, count, total, {
    lo: lo.slice(0, stretches),
    hi: hi.slice(0, stretches),
  });
}
