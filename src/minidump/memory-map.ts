// One address map over everything the dump captured: MemoryList and Memory64List ranges merged,
// sorted by start address, empty ranges dropped and overlaps trimmed (the first capture of an
// address wins), so a binary search finds the one range holding any address. `plan` turns a
// read of [address, address+length) into file pieces, running on across ranges that touch.
import type { CapturedRange } from './streams/memory-lists.js';

const U64_END = 1n << 64n;

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

export class MemoryMap {
  readonly #ranges: readonly CapturedRange[];
  readonly #starts: BigUint64Array;
  /** Exclusive ends; an end of exactly 2^64 cannot be stored, so such ranges end one byte early. */
  readonly #ends: BigUint64Array;
  readonly stats: MemoryMapStats;

  private constructor(ranges: CapturedRange[], stats: MemoryMapStats) {
    this.#ranges = ranges;
    this.#starts = BigUint64Array.from(ranges, (r) => r.start);
    this.#ends = BigUint64Array.from(ranges, (r) => r.start + BigInt(r.size));
    this.stats = stats;
  }

  static build(input: readonly CapturedRange[]): MemoryMap {
    const sorted = input
      .filter((r) => r.size > 0)
      .map((r) => {
        const room = U64_END - 1n - r.start;
        return BigInt(r.size) > room ? { ...r, size: Number(room) } : { ...r };
      })
      .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : b.size - a.size));
    const ranges: CapturedRange[] = [];
    let overlapCount = 0;
    let overlapBytes = 0;
    let totalBytes = 0;
    let prevEnd = 0n;
    for (const range of sorted) {
      const end = range.start + BigInt(range.size);
      if (ranges.length > 0 && range.start < prevEnd) {
        overlapCount++;
        if (end <= prevEnd) {
          overlapBytes += range.size;
          continue;
        }
        const skip = Number(prevEnd - range.start);
        overlapBytes += skip;
        range.start = prevEnd;
        range.fileOffset += skip;
        range.size -= skip;
      }
      ranges.push(range);
      totalBytes += range.size;
      prevEnd = range.start + BigInt(range.size);
    }
    return new MemoryMap(ranges, {
      rangeCount: ranges.length,
      totalBytes,
      overlapCount,
      overlapBytes,
    });
  }

  /** The merged ranges, sorted by address. */
  ranges(): readonly CapturedRange[] {
    return this.#ranges;
  }

  /** Index of the range holding `address`, or -1. */
  find(address: bigint): number {
    const starts = this.#starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((starts[mid] ?? 0n) <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    // hi is now the last range starting at or below address.
    return hi >= 0 && address < (this.#ends[hi] ?? 0n) ? hi : -1;
  }

  /**
   * The file pieces holding [address, address+length), stopping at the first byte not captured.
   * Empty when `address` itself is not captured.
   */
  plan(address: bigint, length: number): ReadPiece[] {
    let index = this.find(address);
    if (index < 0 || length <= 0) return [];
    const pieces: ReadPiece[] = [];
    let at = address;
    let left = length;
    while (left > 0 && index < this.#ranges.length) {
      const range = this.#ranges[index];
      if (!range || at < range.start || at >= range.start + BigInt(range.size)) break;
      const inRange = Number(at - range.start);
      const take = Math.min(left, range.size - inRange);
      pieces.push({ fileOffset: range.fileOffset + inRange, length: take });
      left -= take;
      at += BigInt(take);
      index++;
    }
    return pieces;
  }
}
