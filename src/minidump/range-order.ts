// The order of a dump's captured ranges by start address (then the bigger range first, then
// capture order), for the memory map's merge. Writers put ranges down in a few sorted runs, so
// the fast path merges those runs over typed arrays, in a work space reused from dump to dump.

/**
 * Work space of the fast merge (starts as doubles, two index arrays), reused from dump to dump:
 * the merge is synchronous, so one process needs one. A batch of Wine dumps (thousands of ranges
 * each) otherwise allocates ~100 KB of short-lived ArrayBuffers per dump, memory outside the JS
 * heap that only a full GC returns. Kept only up to SCRATCH_KEEP ranges (1.25 MiB).
 */
const SCRATCH_KEEP = 1 << 16;
let scratch: { starts: Float64Array; a: Int32Array; b: Int32Array } | undefined;

export function workSpace(count: number): { starts: Float64Array; a: Int32Array; b: Int32Array } {
  if (scratch !== undefined && scratch.starts.length >= count) return scratch;
  const size = count <= SCRATCH_KEEP ? Math.max(1024, 2 ** Math.ceil(Math.log2(count))) : count;
  const space = {
    starts: new Float64Array(size),
    a: new Int32Array(size),
    b: new Int32Array(size),
  };
  if (size <= SCRATCH_KEEP) scratch = space;
  return space;
}

/**
 * Indices 0..count-1 by start, then the bigger range first, then capture order: a natural merge
 * sort over typed arrays. Writers put ranges down in a few sorted runs (Wine's thousands of tiny
 * ranges come in 5–300 runs), so merging the runs pairwise costs ~n·log2(runs) inline compares,
 * where Array.prototype.sort paid a call into a comparator closure for each.
 */
export function mergeOrder(
  count: number,
  starts: Float64Array,
  sizes: Float64Array,
  first: Int32Array,
  second: Int32Array,
  /** Where each sorted run begins, then `count`, when the caller found them already. */
  bounds?: readonly number[],
): Int32Array {
  const before = (a: number, b: number): boolean => {
    const sa = starts[a] ?? 0;
    const sb = starts[b] ?? 0;
    if (sa !== sb) return sa < sb;
    const za = sizes[a] ?? 0;
    const zb = sizes[b] ?? 0;
    return za !== zb ? za > zb : a < b;
  };
  let src = first;
  let dst = second;
  // Run boundaries: runs[r] is where run r starts; the last entry is `count`.
  let runs: readonly number[];
  if (bounds === undefined) {
    const found = [0];
    for (let i = 0; i < count; i++) {
      src[i] = i;
      if (i > 0 && before(i, i - 1)) found.push(i);
    }
    found.push(count);
    runs = found;
  } else {
    for (let i = 0; i < count; i++) src[i] = i;
    runs = bounds;
  }
  while (runs.length > 2) {
    const next: number[] = [];
    for (let r = 0; r + 1 < runs.length; r += 2) {
      const lo = runs[r] ?? 0;
      const mid = runs[r + 1] ?? count;
      const hi = runs[r + 2] ?? count;
      next.push(lo);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const a = src[i] ?? 0;
        const b = src[j] ?? 0;
        // Ties go to the left run (equal keys cannot happen: the index breaks them).
        if (before(b, a)) {
          dst[k++] = b;
          j++;
        } else {
          dst[k++] = a;
          i++;
        }
      }
      while (i < mid) dst[k++] = src[i++] ?? 0;
      while (j < hi) dst[k++] = src[j++] ?? 0;
    }
    next.push(count);
    runs = next;
    [src, dst] = [dst, src];
  }
  return src;
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
