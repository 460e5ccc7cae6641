// The merged address map: sorted lookups, reads that run across touching ranges and stop at gaps,
// overlaps trimmed so the first capture of an address wins.
import { expect } from 'chai';
import { MemoryMap, type CapturedRange } from '../../src/minidump/index.js';

const range = (start: bigint, size: number, fileOffset: number): CapturedRange => ({
  start,
  size,
  fileOffset,
  source: 'MemoryList',
});

describe('MemoryMap', function () {
  it('finds the range holding an address whatever order the ranges came in', function () {
    const map = MemoryMap.build([
      range(0x3000n, 0x100, 300),
      range(0x1000n, 0x100, 100),
      range(0x2000n, 0x100, 200),
    ]);
    expect(map.ranges().map((r) => r.start)).to.deep.equal([0x1000n, 0x2000n, 0x3000n]);
    expect(map.find(0x1000n)).to.equal(0);
    expect(map.find(0x20ffn)).to.equal(1);
    expect(map.find(0x2100n)).to.equal(-1);
    expect(map.find(0xfffn)).to.equal(-1);
    expect(map.find(0xffffffffffffffffn)).to.equal(-1);
  });

  it('plans a read across touching ranges and stops at the first gap', function () {
    const map = MemoryMap.build([
      range(0x1000n, 0x100, 100),
      range(0x1100n, 0x100, 900),
      range(0x1300n, 0x100, 5000),
    ]);
    expect(map.plan(0x10f0n, 0x20)).to.deep.equal([
      { fileOffset: 100 + 0xf0, length: 0x10 },
      { fileOffset: 900, length: 0x10 },
    ]);
    expect(map.plan(0x11f0n, 0x1000)).to.deep.equal([{ fileOffset: 900 + 0xf0, length: 0x10 }]);
    expect(map.plan(0x1200n, 4)).to.deep.equal([]);
  });

  it('trims overlaps so the earlier capture wins, and counts them', function () {
    const map = MemoryMap.build([
      range(0x1000n, 0x200, 0),
      range(0x1100n, 0x200, 10_000), // overlaps the first by 0x100
      range(0x1080n, 0x10, 20_000), // wholly inside the first
    ]);
    expect(map.stats).to.deep.equal({
      rangeCount: 2,
      totalBytes: 0x300,
      overlapCount: 2,
      overlapBytes: 0x110,
    });
    expect(map.plan(0x1200n, 1)).to.deep.equal([{ fileOffset: 10_000 + 0x100, length: 1 }]);
    expect(map.plan(0x1080n, 1)).to.deep.equal([{ fileOffset: 0x80, length: 1 }]);
  });

  it('drops empty ranges and answers nothing from an empty map', function () {
    const map = MemoryMap.build([range(0x1000n, 0, 0)]);
    expect(map.stats.rangeCount).to.equal(0);
    expect(map.plan(0x1000n, 1)).to.deep.equal([]);
  });
});
