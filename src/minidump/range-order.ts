// The order of a dump's captured ranges by start address (then the bigger range first, then
// capture order), for the memory map's merge. Writers put ranges down in a few sorted runs that
// interleave little (Wine: ~4,600 ranges in 6-300 runs whose merged order is 13-570 stretches of
// one run), so the fast path merges the runs by stretches, galloping, in a work space reused
// from dump to dump, and never moves a range one at a time.

/** The fast merge's work space: starts and sizes as doubles, and mergeRuns' columns. */
export interface WorkSpace {
  starts: Float64Array;
  sizes: Float64Array;
  /** Stretch starts and ends (mergeRuns' answer). */
  lo: Int32Array;
  hi: Int32Array;
  /** mergeRuns' heap of runs: each run's next range, its start, and the run's end. */
  heads: Int32Array;
  keys: Float64Array;
  ends: Int32Array;
}

/**
 * Work space of the fast merge, reused from dump to dump: the merge is synchronous, so one
 * process needs one. A batch of Wine dumps (thousands of ranges each) otherwise allocates
 * ~100 KB of short-lived ArrayBuffers per dump, memory outside the JS heap that only a full GC
 * returns. Kept only up to SCRATCH_KEEP ranges (2.5 MiB).
 */
const SCRATCH_KEEP = 1 << 16;
let scratch: WorkSpace | undefined;

export function workSpace(count: number): WorkSpace {
  if (scratch !== undefined && scratch.starts.length >= count) return scratch;
  const size = count <= SCRATCH_KEEP ? Math.max(1024, 2 ** Math.ceil(Math.log2(count))) : count;
  const space = {
    starts: new Float64Array(size),
    sizes: new Float64Array(size),
    lo: new Int32Array(size),
    hi: new Int32Array(size),
    heads: new Int32Array(size),
    keys: new Float64Array(size),
    ends: new Int32Array(size),
  };
  if (size <= SCRATCH_KEEP) scratch = space;
  return space;
}

/**
 * Merges the sorted runs of ranges 0..count-1 (`runs`: where each run begins, then `count`)
 * into stretches: ranges lo[s]..hi[s]-1 of `space`, stretch after stretch, are every range in
 * order by start, then the bigger range first, then capture order. Returns the stretch count.
 *
 * A k-way merge: a heap holds the runs by their next range; the run on top gives up, in one
 * step, every range before the next range of the runner-up, found by galloping (1, 2, 4, ...
 * ahead, then halving), as TimSort does (https://github.com/python/cpython/blob/main/Objects/listsort.txt).
 * That is ~stretches·log(runs) compares where a merge of ranges one by one paid ~n·log2(runs).
 * The heap keeps each head's start beside it, so a compare is one of doubles but on a tie.
 */
export function mergeRuns(
  count: number,
  starts: Float64Array,
  sizes: Float64Array,
  runs: readonly number[],
  space: WorkSpace,
): number {
  const { lo, hi, heads, keys, ends } = space;
  const k = runs.length - 1;
  if (k <= 1) {
    lo[0] = 0;
    hi[0] = count;
    return count > 0 ? 1 : 0;
  }
  // Two ranges with one start: the bigger first, then capture order (never equal).
  const tie = (a: number, b: number): boolean => {
    const za = sizes[a] ?? 0;
    const zb = sizes[b] ?? 0;
    return za !== zb ? za > zb : a < b;
  };
  let size = k;
  // Moves the run in heap slot `from` down to its place (the hole is filled once, at the end).
  const siftDown = (from: number) => {
    const key = keys[from] ?? 0;
    const head = heads[from] ?? 0;
    const end = ends[from] ?? 0;
    let at = from;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      let childKey = keys[child] ?? 0;
      if (child + 1 < size) {
        const right = keys[child + 1] ?? 0;
        if (
          right < childKey ||
          (right === childKey && tie(heads[child + 1] ?? 0, heads[child] ?? 0))
        ) {
          child++;
          childKey = right;
        }
      }
      if (!(childKey < key || (childKey === key && tie(heads[child] ?? 0, head)))) break;
      keys[at] = childKey;
      heads[at] = heads[child] ?? 0;
      ends[at] = ends[child] ?? 0;
      at = child;
    }
    keys[at] = key;
    heads[at] = head;
    ends[at] = end;
  };
  for (let r = 0; r < k; r++) {
    const head = runs[r] ?? 0;
    heads[r] = head;
    keys[r] = starts[head] ?? 0;
    ends[r] = runs[r + 1] ?? count;
  }
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);
  let n = 0;
  while (size > 0) {
    const from = heads[0] ?? 0;
    const end = ends[0] ?? 0;
    let stop = end;
    if (size > 1) {
      // The runner-up is a child of the top; its head bounds the stretch taken now.
      let second = 1;
      if (size > 2) {
        const k1 = keys[1] ?? 0;
        const k2 = keys[2] ?? 0;
        if (k2 < k1 || (k2 === k1 && tie(heads[2] ?? 0, heads[1] ?? 0))) second = 2;
      }
      const bound = heads[second] ?? 0;
      const boundKey = keys[second] ?? 0;
      // `from` is before `bound`; gallop for the first range of the run that is not.
      let good = from;
      let step = 1;
      let probe = from + 1;
      while (probe < end) {
        const key = starts[probe] ?? 0;
        if (key > boundKey || (key === boundKey && !tie(probe, bound))) break;
        good = probe;
        step *= 2;
        probe = good + step;
      }
      let low = good + 1;
      let high = Math.min(probe, end);
      while (low < high) {
        const mid = (low + high) >>> 1;
        const key = starts[mid] ?? 0;
        if (key < boundKey || (key === boundKey && tie(mid, bound))) low = mid + 1;
        else high = mid;
      }
      stop = low;
    }
    lo[n] = from;
    hi[n] = stop;
    n++;
    if (stop === end) {
      size--;
      keys[0] = keys[size] ?? 0;
      heads[0] = heads[size] ?? 0;
      ends[0] = ends[size] ?? 0;
    } else {
      heads[0] = stop;
      keys[0] = starts[stop] ?? 0;
    }
    if (size > 1) siftDown(0);
  }
  return n;
}

/**
 * Indices 0..count-1 in `compare` order, or undefined when they already are in order (Wine and
 * MiniDumpWriteDump mostly write ranges sorted, so the sort is usually skipped).
 */
export function sortedOrder(
  count: number,
  sorted: boolean,
  compare: (a: number, b: number) => number,
): number[] | undefined {
  if (sorted) return undefined;
  // A plain array, not a Uint32Array: Array.prototype.sort is a TimSort, which merges the few
  // long sorted runs writers produce in ~n·log(runs) comparisons. The index tie-break makes the
  // order total, so stability does not matter.
  const order: number[] = [];
  for (let i = 0; i < count; i++) order.push(i);
  return order.sort(compare);
}
