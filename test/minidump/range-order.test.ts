// The captured ranges' order for the memory map's merge: by start, then the bigger range first,
// then capture order. The run-merging sort must agree with a plain comparator sort on inputs of
// many short sorted runs (as Wine writes them), ties and one long run included.
import { expect } from 'chai';
import { mergeOrder, sortedOrder, workSpace } from '../../src/minidump/range-order.js';

function reference(starts: Float64Array, sizes: Float64Array, count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  return order.sort((a, b) => {
    const ds = (starts[a] ?? 0) - (starts[b] ?? 0);
    if (ds !== 0) return ds;
    const dz = (sizes[b] ?? 0) - (sizes[a] ?? 0);
    return dz !== 0 ? dz : a - b;
  });
}

describe('range order (minidump/range-order)', () => {
  it('merges sorted runs into the same order as a comparator sort, ties broken by size then index', () => {
    let seed = 22;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (const count of [1, 2, 7, 300, 4600]) {
      const starts = new Float64Array(count);
      const sizes = new Float64Array(count);
      let at = 0;
      for (let i = 0; i < count; i++) {
        // A new run every ~20 ranges restarts lower; equal starts and sizes appear on purpose.
        if (next() % 20 === 0) at = next() % 5000;
        at += next() % 3;
        starts[i] = at * 0x1000;
        sizes[i] = (next() % 4) * 0x1000;
      }
      const space = workSpace(count);
      const order = mergeOrder(count, starts, sizes, space.a, space.b);
      expect(Array.from(order.subarray(0, count)), `count ${count}`).to.deep.equal(
        reference(starts, sizes, count),
      );
      // The run bounds the memory map finds while it reads the starts: the same order.
      const bounds = [0];
      for (let i = 1; i < count; i++) {
        const s = starts[i] ?? 0;
        const p = starts[i - 1] ?? 0;
        if (s < p || (s === p && (sizes[i] ?? 0) > (sizes[i - 1] ?? 0))) bounds.push(i);
      }
      bounds.push(count);
      const given = mergeOrder(count, starts, sizes, space.a, space.b, bounds);
      expect(Array.from(given.subarray(0, count)), `count ${count}, bounds given`).to.deep.equal(
        reference(starts, sizes, count),
      );
    }
  });

  it('skips the sort when the ranges are already in order, and sorts them otherwise', () => {
    const compare = (a: number, b: number) => [3, 1, 2][a]! - [3, 1, 2][b]!;
    expect(sortedOrder(3, true, compare)).to.equal(undefined);
    expect(sortedOrder(3, false, compare)).to.deep.equal([1, 2, 0]);
  });

  it('reuses one work space for small maps and gives a big map its own', () => {
    expect(workSpace(10)).to.equal(workSpace(900));
    const big = workSpace(1 << 17);
    expect(big.starts.length).to.be.at.least(1 << 17);
    expect(workSpace(10)).to.not.equal(big);
  });
});
