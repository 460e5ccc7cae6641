// The captured ranges' order for the memory map's merge: by start, then the bigger range first,
// then capture order. The stretch merge of sorted runs must agree with a plain comparator sort
// on inputs of many short sorted runs (as Wine writes them), a few long interleaved runs, ties,
// one long run and every range its own run (a reversed list).
import { expect } from 'chai';
import { mergeRuns, sortedOrder, workSpace } from '../../src/minidump/range-order.js';

function reference(starts: Float64Array, sizes: Float64Array, count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  return order.sort((a, b) => {
    const ds = (starts[a] ?? 0) - (starts[b] ?? 0);
    if (ds !== 0) return ds;
    const dz = (sizes[b] ?? 0) - (sizes[a] ?? 0);
    return dz !== 0 ? dz : a - b;
  });
}

/** The run bounds the memory map finds while it reads the starts. */
function runBounds(starts: Float64Array, sizes: Float64Array, count: number): number[] {
  const bounds = [0];
  for (let i = 1; i < count; i++) {
    const s = starts[i] ?? 0;
    const p = starts[i - 1] ?? 0;
    if (s < p || (s === p && (sizes[i] ?? 0) > (sizes[i - 1] ?? 0))) bounds.push(i);
  }
  bounds.push(count);
  return bounds;
}

/** mergeRuns' stretches written out as indices. */
function merged(starts: Float64Array, sizes: Float64Array, count: number): number[] {
  const space = workSpace(count);
  const stretches = mergeRuns(count, starts, sizes, runBounds(starts, sizes, count), space);
  const order: number[] = [];
  for (let s = 0; s < stretches; s++) {
    for (let i = space.lo[s] ?? 0; i < (space.hi[s] ?? 0); i++) order.push(i);
  }
  return order;
}

describe('range order (minidump/range-order)', () => {
  it('merges sorted runs into the same order as a comparator sort, ties broken by size then index', () => {
    let seed = 22;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (const runEvery of [2, 20, 1000]) {
      for (const count of [0, 1, 2, 7, 300, 4600]) {
        const starts = new Float64Array(count);
        const sizes = new Float64Array(count);
        let at = 0;
        for (let i = 0; i < count; i++) {
          // A new run every ~runEvery ranges restarts lower; equal starts and sizes on purpose.
          if (next() % runEvery === 0) at = next() % 5000;
          at += next() % 3;
          starts[i] = at * 0x1000;
          sizes[i] = (next() % 4) * 0x1000;
        }
        expect(merged(starts, sizes, count), `count ${count}, runs ~${runEvery}`).to.deep.equal(
          reference(starts, sizes, count),
        );
      }
    }
  });

  it('merges long runs that interleave in places, and a list written backwards', () => {
    // Two runs over the same addresses (as Wine's 1,407- and 1,491-range runs overlap in part).
    const count = 3000;
    const starts = new Float64Array(count);
    const sizes = new Float64Array(count).fill(8);
    for (let i = 0; i < 1500; i++) starts[i] = 0x7b0a6000 + i * 16;
    for (let i = 1500; i < count; i++) starts[i] = 0x7b0a6000 + (i - 1000) * 16 + 8;
    expect(merged(starts, sizes, count)).to.deep.equal(reference(starts, sizes, count));
    const space = workSpace(count);
    const stretches = mergeRuns(count, starts, sizes, runBounds(starts, sizes, count), space);
    // Run one's first 501 ranges in one stretch, then the two runs alternate range by range
    // (999 stretches each), then run two's last 501 ranges in one stretch.
    expect(stretches).to.equal(1 + 999 + 999 + 1);
    const backwards = Float64Array.from({ length: 500 }, (_, i) => (500 - i) * 4);
    const ones = new Float64Array(500).fill(1);
    expect(merged(backwards, ones, 500)).to.deep.equal(reference(backwards, ones, 500));
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
