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
  /** `heap 0x…: why it was not walked (or where its walk broke)`. */
  notes: string[];
}

export function nativeHeapReading(walk: HeapWalk): NativeHeapReading {
  const rows: HeapTrendSampleHeap[] = [];
  const allocations: bigint[] = [];
  const notes: string[] = [];
  for (const heap of walk.heaps) {
    const id = `0x${heap.base.toString(16)}`;
    rows.push({
      id,
      committedKb: heap.committedBytes / 1024,
      reservedKb: heap.reservedBytes / 1024,
    });
    for (const part of heap.parts) allocations.push(part.allocationBase);
    if (heap.note !== undefined) notes.push(`heap ${id}: ${heap.note}`);
  }
  return { rows, allocations, walked: walk.heaps.some((h) => h.walk !== 'base-only'), notes };
}
