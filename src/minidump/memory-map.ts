// One address map over everything the dump captured: MemoryList and Memory64List ranges merged,
// sorted by start address, empty ranges dropped and overlaps trimmed (the first capture of an
// address wins), so a binary search finds the one range holding any address. `plan` turns a
// read of [address, address+length) into file pieces, running on across ranges that touch.
//
// Building it is on every inspect's path (the summary counts come from the merge), and Wine's
// minidumps hold thousands of tiny ranges, so the build works on typed-array columns with plain
// numbers: when every start is below 2^52 and every size below 2^52, starts and ends are exact
// doubles. Anything higher (sign-extended x86 addresses, corrupt descriptors) takes an exact
// BigInt path instead. The BigInt lookup tables and the CapturedRange objects are made only when
// a read or a caller needs them.
import {
  allocRangeColumns,
  RANGE_SOURCES,
  type CapturedRange,
  type RangeColumns,
} from './streams/memory-lists.js';
import { uninitializedBuffer } from './bytes.js';
import { MemoryListView } from './memory-list-view.js';
import { mergeRuns, sortedOrder, workSpace } from './range-order.js';

const U64_END = 1n << 64n;
const TWO_32 = 0x1_0000_0000;
/** Starts and sizes below this keep start + size below 2^53, exact as a double. */
const FAST_LIMIT = 2 ** 52;
const FAST_HI_LIMIT = FAST_LIMIT / TWO_32;
const SAFE_END = 2n ** 53n;

export interface ReadPiece {
  fileOffset: number;
  length: number;
}

export interface MemoryMapStats {
  rangeCount: number;
  totalBytes: number;
  /** Ranges that overlapped an earlier one (trimmed or dropped). */
  overlapCount: number;
  overlapBytes: number;
}

/** The merged ranges, sorted by start: starts as doubles or as exact u32 halves. */
interface SortedRanges {
  count: number;
  sizes: Float64Array;
  fileOffsets: Float64Array;
  sources: Uint8Array;
  /** Starts as exact doubles, when every range lies below 2^53 (the usual case). */
  numStarts?: Float64Array;
  /** Otherwise the starts' u32 halves. */
  startHi?: Uint32Array;
  startLo?: Uint32Array;
}

function allocSorted(count: number, withStarts = false): SortedRanges {
  // 8-byte columns first, so every view is aligned; one allocation for the map's lifetime, not
  // zeroed (bytes.ts uninitializedBuffer): only the first `count` entries are ever read.
  const buffer = uninitializedBuffer(count * (withStarts ? 25 : 17));
  const sorted: SortedRanges = {
    count: 0,
    sizes: new Float64Array(buffer, 0, count),
    fileOffsets: new Float64Array(buffer, count * 8, count),
    sources: new Uint8Array(buffer, count * (withStarts ? 24 : 16), count),
  };
  if (withStarts) sorted.numStarts = new Float64Array(buffer, count * 16, count);
  return sorted;
}

export class MemoryMap {
  /** The merged ranges: sorted columns, or a MemoryList read where it lies (memory-list-view.ts). */
  readonly #sorted: SortedRanges | MemoryListView;
  #bigStarts: BigUint64Array | undefined;
  /** Exclusive ends; an end of exactly 2^64 cannot be stored, so such ranges end one byte early. */
  #bigEnds: BigUint64Array | undefined;
  #ranges: CapturedRange[] | undefined;
  readonly stats: MemoryMapStats;

  private constructor(sorted: SortedRanges | MemoryListView, stats: MemoryMapStats) {
    this.#sorted = sorted;
    this.stats = stats;
  }

  /** A MemoryList whose ranges need no merge (memory-list-view.ts): nothing trimmed or dropped. */
  static fromListView(view: MemoryListView): MemoryMap {
    const { count, totalBytes } = view;
    return new MemoryMap(view, { rangeCount: count, totalBytes, overlapCount: 0, overlapBytes: 0 });
  }

  /** From range objects (tests, callers with their own ranges). */
  static build(input: readonly CapturedRange[]): MemoryMap {
    const cols = allocRangeColumns(input.length);
    for (const r of input) {
      if (r.size <= 0) continue;
      const i = cols.count++;
      cols.startHi[i] = Number(BigInt.asUintN(64, r.start) >> 32n);
      cols.startLo[i] = Number(BigInt.asUintN(32, r.start));
      cols.size[i] = r.size;
      cols.fileOffset[i] = r.fileOffset;
      cols.source[i] = RANGE_SOURCES.indexOf(r.source);
    }
    return MemoryMap.fromColumns([cols]);
  }

  /** From parsed lists, in capture order: on an overlap, the earlier batch/entry wins. */
  static fromColumns(batches: readonly RangeColumns[]): MemoryMap {
    const nonEmpty = batches.filter((b) => b.count > 0);
    // The parsers hand over only ranges with bytes, so one list needs no copying.
    let all = nonEmpty.length === 1 && nonEmpty[0] ? nonEmpty[0] : undefined;
    if (all === undefined) {
      let total = 0;
      for (const b of nonEmpty) total += b.count;
      all = allocRangeColumns(total);
      for (const b of nonEmpty) {
        all.startHi.set(b.startHi.subarray(0, b.count), all.count);
        all.startLo.set(b.startLo.subarray(0, b.count), all.count);
        all.size.set(b.size.subarray(0, b.count), all.count);
        all.fileOffset.set(b.fileOffset.subarray(0, b.count), all.count);
        all.source.set(b.source.subarray(0, b.count), all.count);
        all.count += b.count;
      }
    }
    return MemoryMap.#mergeFast(all) ?? MemoryMap.#mergeExact(all);
  }

  /**
   * Every start and end below 2^53: sort and merge on doubles (undefined when some range is
   * not, for the exact path). One pass finds that, the starts as doubles and the sorted runs.
   */
  static #mergeFast(all: RangeColumns): MemoryMap | undefined {
    const count = all.count;
    const { size: sizes, fileOffset: fileOffsets, source: sources, startHi, startLo } = all;
    const space = workSpace(count);
    const starts = space.starts;
    // Where each sorted run begins, then `count` (range-order.ts mergeRuns' run bounds).
    const runs = [0];
    let prev = -1;
    let prevSize = 0;
    for (let i = 0; i < count; i++) {
      const high = startHi[i] ?? 0;
      const size = sizes[i] ?? 0;
      if (high >= FAST_HI_LIMIT || size >= FAST_LIMIT) return undefined;
      const start = high * TWO_32 + (startLo[i] ?? 0);
      starts[i] = start;
      // In order means by start, then the bigger range first (which the merge keeps whole).
      if (start < prev || (start === prev && size > prevSize)) runs.push(i);
      prev = start;
      prevSize = size;
    }
    runs.push(count);
    // The ranges in order: stretches lo[s]..hi[s]-1 of capture order.
    const stretches = mergeRuns(count, starts, sizes, runs, space);
    const { lo, hi } = space;
    const out = allocSorted(count, true);
    const outStarts = out.numStarts ?? new Float64Array(count);
    const { sizes: outSizes, fileOffsets: outOffsets, sources: outSources } = out;
    let overlapCount = 0;
    let overlapBytes = 0;
    let totalBytes = 0;
    let prevEnd = 0;
    let n = 0;
    for (let s = 0; s < stretches; s++) {
      const last = hi[s] ?? 0;
      for (let i = lo[s] ?? 0; i < last; i++) {
        let start = starts[i] ?? 0;
        let size = sizes[i] ?? 0;
        let fileOffset = fileOffsets[i] ?? 0;
        const end = start + size;
        if (n > 0 && start < prevEnd) {
          overlapCount++;
          if (end <= prevEnd) {
            overlapBytes += size;
            continue;
          }
          const skip = prevEnd - start;
          overlapBytes += skip;
          start = prevEnd;
          fileOffset += skip;
          size -= skip;
        }
        outStarts[n] = start;
        outSizes[n] = size;
        outOffsets[n] = fileOffset;
        outSources[n] = sources[i] ?? 0;
        n++;
        totalBytes += size;
        prevEnd = end;
      }
    }
    out.count = n;
    return new MemoryMap(out, { rangeCount: n, totalBytes, overlapCount, overlapBytes });
  }

  /** Some start or size at or past 2^52: the same merge on BigInts, exact to 2^64. */
  static #mergeExact(all: RangeColumns): MemoryMap {
    const count = all.count;
    const starts: bigint[] = [];
    const sizes: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = (BigInt(all.startHi[i] ?? 0) << 32n) | BigInt(all.startLo[i] ?? 0);
      const size = all.size[i] ?? 0;
      // A range running past 2^64 - 1 is cut there: no address beyond exists.
      const room = U64_END - 1n - start;
      starts.push(start);
      sizes.push(BigInt(size) > room ? Number(room) : size);
    }
    const order = sortedOrder(count, false, (a, b) => {
      const sa = starts[a] ?? 0n;
      const sb = starts[b] ?? 0n;
      return sa < sb ? -1 : sa > sb ? 1 : (sizes[b] ?? 0) - (sizes[a] ?? 0) || a - b;
    });
    const out = allocSorted(count);
    const startHi = new Uint32Array(count);
    const startLo = new Uint32Array(count);
    let overlapCount = 0;
    let overlapBytes = 0;
    let totalBytes = 0;
    let prevEnd = 0n;
    let n = 0;
    for (let k = 0; k < count; k++) {
      const i = order?.[k] ?? k;
      let start = starts[i] ?? 0n;
      let size = sizes[i] ?? 0;
      let fileOffset = all.fileOffset[i] ?? 0;
      const end = start + BigInt(size);
      if (n > 0 && start < prevEnd) {
        overlapCount++;
        if (end <= prevEnd) {
          overlapBytes += size;
          continue;
        }
        const skip = Number(prevEnd - start);
        overlapBytes += skip;
        start = prevEnd;
        fileOffset += skip;
        size -= skip;
      }
      startHi[n] = Number(start >> 32n);
      startLo[n] = Number(BigInt.asUintN(32, start));
      out.sizes[n] = size;
      out.fileOffsets[n] = fileOffset;
      out.sources[n] = all.source[i] ?? 0;
      n++;
      totalBytes += size;
      prevEnd = start + BigInt(size);
    }
    out.count = n;
    out.startHi = startHi;
    out.startLo = startLo;
    return new MemoryMap(out, { rangeCount: n, totalBytes, overlapCount, overlapBytes });
  }

  /** The merged ranges, sorted by address (made on first call). */
  ranges(): readonly CapturedRange[] {
    if (this.#ranges) return this.#ranges;
    const sorted = this.#sorted;
    const ranges: CapturedRange[] = [];
    for (let i = 0; i < sorted.count; i++) {
      ranges.push({
        start: this.#start(i),
        size: this.#size(i),
        fileOffset: this.#fileOffset(i),
        source:
          sorted instanceof MemoryListView
            ? 'MemoryList'
            : (RANGE_SOURCES[sorted.sources[i] ?? 0] ?? 'MemoryList'),
      });
    }
    this.#ranges = ranges;
    return ranges;
  }

  /** Start of the highest merged range, or undefined when nothing was captured. */
  highestStart(): bigint | undefined {
    const last = this.#sorted.count - 1;
    return last >= 0 ? this.#start(last) : undefined;
  }

  /** Index of the range holding `address`, or -1. */
  find(address: bigint): number {
    const sorted = this.#sorted;
    if (sorted instanceof MemoryListView) {
      return address < 0n || address >= SAFE_END ? -1 : sorted.find(Number(address));
    }
    const { count, numStarts, sizes } = sorted;
    if (numStarts !== undefined) {
      // Every range ends at or below 2^53 here, so a higher (or negative) address is in none.
      if (address < 0n || address >= SAFE_END) return -1;
      const at = Number(address);
      let lo = 0;
      let hi = count - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        if ((numStarts[mid] ?? 0) <= at) lo = mid + 1;
        else hi = mid - 1;
      }
      return hi >= 0 && at < (numStarts[hi] ?? 0) + (sizes[hi] ?? 0) ? hi : -1;
    }
    const { starts, ends } = this.#bigTables();
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((starts[mid] ?? 0n) <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    // hi is now the last range starting at or below address.
    return hi >= 0 && address < (ends[hi] ?? 0n) ? hi : -1;
  }

  /**
   * The file pieces holding [address, address+length), stopping at the first byte not captured.
   * Empty when `address` itself is not captured.
   */
  plan(address: bigint, length: number): ReadPiece[] {
    let index = this.find(address);
    if (index < 0 || length <= 0) return [];
    const sorted = this.#sorted;
    const pieces: ReadPiece[] = [];
    let at = address;
    let left = length;
    while (left > 0 && index < sorted.count) {
      const start = this.#start(index);
      const size = this.#size(index);
      if (at < start || at >= start + BigInt(size)) break;
      const inRange = Number(at - start);
      const take = Math.min(left, size - inRange);
      pieces.push({ fileOffset: this.#fileOffset(index) + inRange, length: take });
      left -= take;
      at += BigInt(take);
      index++;
    }
    return pieces;
  }

  #start(i: number): bigint {
    const sorted = this.#sorted;
    if (sorted instanceof MemoryListView) return BigInt(sorted.start(i));
    const { numStarts, startHi, startLo } = sorted;
    if (numStarts !== undefined) return BigInt(numStarts[i] ?? 0);
    return (BigInt(startHi?.[i] ?? 0) << 32n) | BigInt(startLo?.[i] ?? 0);
  }

  #size(i: number): number {
    const sorted = this.#sorted;
    return sorted instanceof MemoryListView ? sorted.size(i) : (sorted.sizes[i] ?? 0);
  }

  #fileOffset(i: number): number {
    const sorted = this.#sorted;
    return sorted instanceof MemoryListView ? sorted.fileOffset(i) : (sorted.fileOffsets[i] ?? 0);
  }

  #bigTables(): { starts: BigUint64Array; ends: BigUint64Array } {
    if (this.#bigStarts === undefined || this.#bigEnds === undefined) {
      const count = this.#sorted.count;
      const starts = new BigUint64Array(count);
      const ends = new BigUint64Array(count);
      for (let i = 0; i < count; i++) {
        const start = this.#start(i);
        starts[i] = start;
        // The merge cut every range to end by 2^64 - 1, so this fits.
        ends[i] = start + BigInt(this.#size(i));
      }
      this.#bigStarts = starts;
      this.#bigEnds = ends;
    }
    return { starts: this.#bigStarts, ends: this.#bigEnds };
  }
}
