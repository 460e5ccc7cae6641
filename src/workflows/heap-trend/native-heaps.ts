// One full dump's process heaps as heap-trend rows (processor/heap-walk.ts): one row per heap,
// id its base address as `!heap -s -h 0` prints it in a `0x…` record (`0x10a0000`), committed and
// reserved KB of every allocation it is made of (base, sub-heaps/segments, large blocks); the
// allocations themselves, which memory-categories.ts counts as `heap`; and the notes of the heaps
// that could not be walked (counted as the allocation holding their base, as before the walker).
import type { HeapWalk } from '../../processor/heap-walk.js';
import type { HeapTrendSampleHeap } from '../../report/heap-trend/types.js';

export interface NativeHeapReading {
  /** One row per heap, in the walk's order. */
  rows: HeapTrendSampleHeap[];
  /** Allocation bases of every part of every heap. */
  allocations: bigint[];
  /** At least one heap was walked past its base (a layout this project reads). */
  walked: boolean;
  /** Why a heap was not walked (or where its walk broke). */
  notes: { heap: string; note: string }[];
}

export function nativeHeapReading(walk: HeapWalk): NativeHeapReading {
  const rows: HeapTrendSampleHeap[] = [];
  const allocations: bigint[] = [];
  const notes: NativeHeapReading['notes'] = [];
  for (const heap of walk.heaps) {
    const id = `0x${heap.base.toString(16)}`;
    rows.push({
      id,
      committedKb: heap.committedBytes / 1024,
      reservedKb: heap.reservedBytes / 1024,
    });
    for (const part of heap.parts) allocations.push(part.allocationBase);
    if (heap.note !== undefined) notes.push({ heap: id, note: heap.note });
  }
  return { rows, allocations, walked: walk.heaps.some((h) => h.walk !== 'base-only'), notes };
}

/** Heaps named in one note line at most; the rest are counted. */
const NAMED_PER_NOTE = 3;

/**
 * The notes of a series of dumps as warning lines, one per reason (a Windows process's dozen NT
 * heaps give one line, not a dozen): `heap 0x…: …` or `heaps 0x…, 0x…, 0x… and 9 more: …`.
 */
export function heapNoteLines(readings: readonly NativeHeapReading[]): string[] {
  const byNote = new Map<string, Set<string>>();
  for (const reading of readings) {
    for (const { heap, note } of reading.notes) {
      const heaps = byNote.get(note) ?? new Set<string>();
      heaps.add(heap);
      byNote.set(note, heaps);
    }
  }
  return [...byNote].map(([note, set]) => {
    const heaps = [...set];
    if (heaps.length === 1) return `heap ${heaps[0] ?? ''}: ${note}`;
    const named = heaps.slice(0, NAMED_PER_NOTE).join(', ');
    const more = heaps.length - NAMED_PER_NOTE;
    return `heaps ${named}${more > 0 ? ` and ${more} more` : ''}: ${note}`;
  });
}
