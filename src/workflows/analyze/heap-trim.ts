// The batch's own thread holds ~10-15 MB of live data at 10,000 dumps (the summary's tallies and
// the report's rows), yet V8 lets its heap reach 45-65 MB: the young generation grows to its 32 MB
// maximum and the old one fills with garbage up to its first limit. Collecting it every
// CHECK_EVERY records once it is past FLOOR_BYTES keeps a long batch's peak down, measured on the
// built CLI over 10,000 example dumps (GNU time, alternating runs): with two analyze threads,
// 151-155 MB against 172-183 MB without, the same CPU; analysing on this thread (--threads 0),
// 142 MB against 169 MB for ~7% more CPU. Batches of fewer than CHECK_EVERY dumps never collect.
//
// Node has no collector call without `--expose-gc`; setting the flag at run time and taking `gc`
// from a fresh context is what Jest's leak detector does
// (https://github.com/jestjs/jest/blob/main/packages/jest-leak-detector/src/index.ts). The flag is
// set back at once, so no later context (an analyze thread's) gets a global `gc`.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The heap is looked at once per this many records. A full collection costs this thread 10-30 ms
 * and frees little at once (the young generation keeps its size: 24 -> 24, 40 -> 39 MB), so
 * this is about as often as it helps: what keeps the heap small is collecting before the young
 * generation grows. Every 32 records was ~300 collections in 10,000 dumps (28% of this thread's
 * time with analyze threads); every 256, 37 (0.6-1.1 s); collecting only once the heap grew 8 MB
 * past what the last collection left, 4 collections and a 165 MB peak.
 */
const CHECK_EVERY = 256;
/** Below this the heap is left alone. */
const FLOOR_BYTES = 24 * 1024 * 1024;

let collect: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') {
    collect = exposed as () => void;
    return collect;
  }
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collect = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collect = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

export interface HeapTrimmer {
  /** One more record written: now and then, collects the heap when it has grown. */
  tick(): void;
  /** Collections made so far. */
  readonly collections: number;
}

/**
 * Keeps this thread's heap within twice what it holds live (and at least FLOOR_BYTES): a full
 * collection when the heap's physical size passes that. `floorBytes` for tests.
 */
export function heapTrimmer(floorBytes = FLOOR_BYTES): HeapTrimmer {
  let ticks = 0;
  let limit = floorBytes;
  let collections = 0;
  return {
    tick() {
      if (++ticks % CHECK_EVERY !== 0) return;
      if (getHeapStatistics().total_physical_size <= limit) return;
      const gc = collector();
      if (gc === null) return;
      gc();
      collections++;
      limit = Math.max(floorBytes, 2 * getHeapStatistics().used_heap_size);
    },
    // eslint-disable-next-line no-restricted-syntax -- made once per batch, not per dump
    get collections() {
      return collections;
    },
  };
}
