// The columnar memory map: the fast path (every start below 2^52, compared as doubles) and the
// exact BigInt path (anything higher) must give the same merged ranges, and the exact path must
// keep addresses apart that doubles cannot (2^53 and 2^53 + 1). Also the list parsers' columns.
import { expect } from 'chai';
import { MemoryMap, type CapturedRange } from '../../src/minidump/index.js';
import type { StreamContext } from '../../src/minidump/stream-context.js';
import {
  parseMemory64List,
  parseMemoryList,
  RANGE_SOURCES,
  type RangeColumns,
} from '../../src/minidump/streams/memory-lists.js';
import { seededRandom } from '../helpers/seeded-random.js';

const range = (
  start: bigint,
  size: number,
  fileOffset: number,
  source: CapturedRange['source'] = 'MemoryList',
): CapturedRange => ({ start, size, fileOffset, source });

function context(data: Buffer, fileSize: number, warnings: string[]): StreamContext {
  return {
    file: 'test.dmp',
    fileSize,
    info: {
      index: 0,
      type: 9,
      name: 'Memory64List',
      size: data.length,
      rva: 0,
      truncated: false,
      duplicate: false,
    },
    data,
    warn: (m) => warnings.push(m),
    pastEnd: () => undefined,
    followReference: () => true,
    read: () => Promise.resolve(Buffer.alloc(0)),
    readString: () => Promise.resolve(null),
  };
}

function rows(columns: RangeColumns): CapturedRange[] {
  const out: CapturedRange[] = [];
  for (let i = 0; i < columns.count; i++) {
    out.push({
      start: (BigInt(columns.startHi[i] ?? 0) << 32n) | BigInt(columns.startLo[i] ?? 0),
      size: columns.size[i] ?? 0,
      fileOffset: columns.fileOffset[i] ?? 0,
      source: RANGE_SOURCES[columns.source[i] ?? 0] ?? 'MemoryList',
    });
  }
  return out;
}

describe('MemoryMap on columns', function () {
  it('sorts and finds ranges above 2^53 exactly, where doubles would merge them', function () {
    const top = 2n ** 53n;
    const map = MemoryMap.build([
      range(top + 1n, 1, 200),
      range(top, 1, 100),
      range(0xffffffff80000000n, 0x10, 300),
      range(0x1000n, 0x10, 400),
    ]);
    expect(map.ranges().map((r) => [r.start, r.fileOffset])).to.deep.equal([
      [0x1000n, 400],
      [top, 100],
      [top + 1n, 200],
      [0xffffffff80000000n, 300],
    ]);
    expect(map.stats).to.deep.equal({
      rangeCount: 4,
      totalBytes: 0x22,
      overlapCount: 0,
      overlapBytes: 0,
    });
    expect(map.find(top)).to.equal(1);
    expect(map.find(top + 1n)).to.equal(2);
    expect(map.find(top + 2n)).to.equal(-1);
    expect(map.plan(top, 2)).to.deep.equal([
      { fileOffset: 100, length: 1 },
      { fileOffset: 200, length: 1 },
    ]);
    expect(map.plan(0xffffffff8000000fn, 4)).to.deep.equal([{ fileOffset: 315, length: 1 }]);
    expect(map.highestStart()).to.equal(0xffffffff80000000n);
  });

  it('cuts a range that runs past 2^64 - 1', function () {
    const map = MemoryMap.build([range(0xfffffffffffffff0n, 0x100, 0)]);
    expect(map.stats.totalBytes).to.equal(0xf);
    expect(map.find(0xfffffffffffffffen)).to.equal(0);
    expect(map.find(0xffffffffffffffffn)).to.equal(-1);
  });

  it('answers -1 for negative and out-of-range addresses on a low map', function () {
    const map = MemoryMap.build([range(0x1000n, 0x10, 0)]);
    expect(map.find(-1n)).to.equal(-1);
    expect(map.find(2n ** 53n)).to.equal(-1);
    expect(map.find(2n ** 64n - 1n)).to.equal(-1);
    expect(map.highestStart()).to.equal(0x1000n);
    expect(MemoryMap.build([]).highestStart()).to.equal(undefined);
  });

  it('gives the same merge below 2^52 (doubles) as far above it (BigInts), sorted or not', function () {
    for (let seed = 1; seed <= 40; seed++) {
      const random = seededRandom(seed);
      const input: CapturedRange[] = [];
      let at = 0x10000;
      for (let i = 0; i < 300; i++) {
        // Mostly ascending, with back steps and overlaps, as writers produce them.
        at += Math.floor(random() * 0x40) - (random() < 0.125 ? 0x100 : 0);
        at = Math.max(0x1000, at);
        const size = 1 + Math.floor(random() * 0x30);
        input.push(
          range(BigInt(at), size, i * 0x40, random() < 0.5 ? 'MemoryList' : 'Memory64List'),
        );
      }
      const high = 0xfff0000000000000n;
      const low = MemoryMap.build(input);
      const far = MemoryMap.build(input.map((r) => ({ ...r, start: r.start + high })));
      expect(far.stats, `seed ${seed}`).to.deep.equal(low.stats);
      expect(
        far.ranges().map((r) => ({ ...r, start: r.start - high })),
        `seed ${seed}`,
      ).to.deep.equal(low.ranges());
      for (let probe = 0; probe < 50; probe++) {
        const address = BigInt(0x1000 + Math.floor(random() * (at - 0x1000 + 0x80)));
        const length = 1 + Math.floor(random() * 0x80);
        expect(far.plan(address + high, length), `seed ${seed}`).to.deep.equal(
          low.plan(address, length),
        );
      }
      // The same ranges in sorted order (the sort is skipped) merge the same way.
      const sorted = [...input].sort((a, b) =>
        a.start < b.start ? -1 : a.start > b.start ? 1 : b.size - a.size,
      );
      expect(MemoryMap.build(sorted).stats, `seed ${seed}`).to.deep.equal(low.stats);
    }
  });

  it('keeps the earlier list on an overlap: MemoryList before Memory64List', function () {
    const map = MemoryMap.build([
      range(0x2000n, 0x100, 1000, 'MemoryList'),
      range(0x2000n, 0x100, 5000, 'Memory64List'),
    ]);
    expect(map.ranges()).to.deep.equal([range(0x2000n, 0x100, 1000, 'MemoryList')]);
    expect(map.stats.overlapCount).to.equal(1);
  });
});

describe('memory list parsers', function () {
  it('MemoryList: descriptors to columns, ranges past the end of the file cut', function () {
    const data = Buffer.alloc(4 + 3 * 16);
    data.writeUInt32LE(3, 0);
    const put = (i: number, start: bigint, size: number, rva: number) => {
      data.writeBigUInt64LE(start, 4 + i * 16);
      data.writeUInt32LE(size, 12 + i * 16);
      data.writeUInt32LE(rva, 16 + i * 16);
    };
    put(0, 0xffffffff80001000n, 0x10, 0x100);
    put(1, 0x2000n, 0x100, 0x980); // only 0x80 bytes before EOF
    put(2, 0x3000n, 0x10, 0x2000); // wholly past EOF
    const warnings: string[] = [];
    const result = parseMemoryList(context(data, 0xa00, warnings));
    expect(rows(result.ranges)).to.deep.equal([
      range(0xffffffff80001000n, 0x10, 0x100),
      range(0x2000n, 0x80, 0x980),
    ]);
    expect(result).to.include({ declaredBytes: 0x120, missingBytes: 0x90 });
    expect(warnings.join('\n')).to.match(/2 range\(s\) point past the end of the file; 144 bytes/);
  });

  it('Memory64List: back-to-back offsets, truncation, and a size past 2^53 stops the list', function () {
    const data = Buffer.alloc(16 + 4 * 16);
    data.writeBigUInt64LE(4n, 0);
    data.writeBigUInt64LE(0x1000n, 8);
    const put = (i: number, start: bigint, size: bigint) => {
      data.writeBigUInt64LE(start, 16 + i * 16);
      data.writeBigUInt64LE(size, 24 + i * 16);
    };
    put(0, 0x7ff000000000n, 0x1000n);
    put(1, 0x10000n, 0x2000n); // file ends 0x800 bytes in
    put(2, 0x20000n, 0x1000n); // wholly missing
    put(3, 0x30000n, 2n ** 53n);
    const warnings: string[] = [];
    const result = parseMemory64List(context(data, 0x2800, warnings));
    expect(rows(result.ranges)).to.deep.equal([
      range(0x7ff000000000n, 0x1000, 0x1000, 'Memory64List'),
      range(0x10000n, 0x800, 0x2000, 'Memory64List'),
    ]);
    expect(result).to.include({ declaredBytes: 0x4000, missingBytes: 0x2800 });
    expect(warnings.join('\n')).to.match(/a range size is absurd/);
    expect(warnings.join('\n')).to.match(/10240 of 16384 bytes are missing/);
  });
});
