// A MemoryList read where it lies (src/minidump/memory-list-view.ts): when it takes the list, the
// map must answer exactly as the merge of parsed columns does (counts, ranges in order, every
// lookup and read plan); and it must refuse every list the merge would trim or cut (overlaps
// inside a run or between runs, one start twice, an empty range, bytes past the end of the file,
// a start at or past 2^52 such as an x86 sign-extended one, a count the stream does not hold).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryMap, type CapturedRange } from '../../src/minidump/index.js';
import { memoryListView } from '../../src/minidump/memory-list-view.js';
import type { StreamContext } from '../../src/minidump/stream-context.js';
import { parseMemoryList } from '../../src/minidump/streams/memory-lists.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { seededRandom } from '../helpers/seeded-random.js';

interface Descriptor {
  start: bigint;
  size: number;
  rva: number;
}

function listStream(descriptors: readonly Descriptor[], claimed = descriptors.length): Buffer {
  const data = Buffer.alloc(4 + descriptors.length * 16);
  data.writeUInt32LE(claimed, 0);
  descriptors.forEach((d, i) => {
    data.writeBigUInt64LE(d.start, 4 + i * 16);
    data.writeUInt32LE(d.size, 12 + i * 16);
    data.writeUInt32LE(d.rva, 16 + i * 16);
  });
  return data;
}

function context(data: Buffer, fileSize: number): StreamContext {
  return {
    file: 'test.dmp',
    fileSize,
    info: {
      index: 0,
      type: 5,
      name: 'MemoryList',
      size: data.length,
      rva: 0,
      truncated: false,
      duplicate: false,
    },
    data,
    warn: () => undefined,
    pastEnd: () => undefined,
    followReference: () => true,
    read: () => Promise.resolve(Buffer.alloc(0)),
    readString: () => Promise.resolve(null),
  };
}

/** The map the merge of parsed columns builds from the same stream (the reference). */
function merged(ctx: StreamContext): MemoryMap {
  return MemoryMap.fromColumns([parseMemoryList(ctx).ranges]);
}

/** Addresses worth asking about: every start, last byte and end, and the gaps around them. */
function probes(ranges: readonly CapturedRange[]): bigint[] {
  const out = [0n, -1n, 2n ** 53n, 2n ** 64n - 1n];
  for (const r of ranges) {
    const end = r.start + BigInt(r.size);
    out.push(r.start - 1n, r.start, r.start + 1n, end - 1n, end, end + 1n);
  }
  return out;
}

function expectSameMap(view: MemoryMap, reference: MemoryMap, label: string): void {
  expect(view.stats, label).to.deep.equal(reference.stats);
  expect(view.ranges(), label).to.deep.equal(reference.ranges());
  expect(view.highestStart(), label).to.equal(reference.highestStart());
  for (const address of probes(reference.ranges())) {
    expect(view.find(address), `${label} find ${address}`).to.equal(reference.find(address));
    for (const length of [1, 3, 0x40]) {
      expect(view.plan(address, length), `${label} plan ${address}+${length}`).to.deep.equal(
        reference.plan(address, length),
      );
    }
  }
}

describe('MemoryList read where it lies (minidump/memory-list-view)', function () {
  it('answers as the merge does on disjoint ranges written in interleaved sorted runs', function () {
    for (let seed = 1; seed <= 30; seed++) {
      const random = seededRandom(seed);
      // Disjoint ranges in address order, some touching (reads run across them), some apart.
      const ordered: Descriptor[] = [];
      let at = 0x10000n + BigInt(Math.floor(random() * 0x1000));
      const total = 1 + Math.floor(random() * 400);
      for (let i = 0; i < total; i++) {
        const size = 1 + Math.floor(random() * 0x40);
        ordered.push({ start: at, size, rva: 0x100 + i * 0x40 });
        at += BigInt(size) + (random() < 0.3 ? 0n : BigInt(Math.floor(random() * 0x80)));
        // Now and then far up, as stacks and images lie apart.
        if (random() < 0.02) at += 0x7ff000000000n;
      }
      // Dealt into runs, each kept in address order, written one run after another.
      const runCount = 1 + Math.floor(random() * (seed % 3 === 0 ? 60 : 6));
      const runs: Descriptor[][] = Array.from({ length: runCount }, () => []);
      for (const d of ordered) runs[Math.floor(random() * runCount)]!.push(d);
      const descriptors = runs.flat();
      const ctx = context(listStream(descriptors), 0x100 + total * 0x40);
      const view = memoryListView(ctx);
      expect(view, `seed ${seed}`).to.not.equal(undefined);
      expectSameMap(MemoryMap.fromListView(view!), merged(ctx), `seed ${seed}`);
    }
  });

  it('refuses every list the merge would trim, cut or take exactly on BigInts', function () {
    const ok: Descriptor[] = [
      { start: 0x3000n, size: 0x10, rva: 0x100 },
      { start: 0x1000n, size: 0x10, rva: 0x200 },
      { start: 0x2000n, size: 0x10, rva: 0x300 },
    ];
    const fileSize = 0x1000;
    expect(memoryListView(context(listStream(ok), fileSize))).to.not.equal(undefined);
    const refused: Record<string, Descriptor[]> = {
      // By one byte: the last of the range before.
      'overlap inside a run': [ok[0]!, { start: 0x300fn, size: 0x10, rva: 0x400 }],
      'overlap between runs': [...ok, { start: 0x100fn, size: 0x10, rva: 0x400 }],
      'one start twice': [...ok, { start: 0x2000n, size: 0x4, rva: 0x400 }],
      'an empty range': [...ok, { start: 0x5000n, size: 0, rva: 0x400 }],
      'bytes past the end of the file': [...ok, { start: 0x5000n, size: 0x10, rva: 0xff8 }],
      'an x86 sign-extended start': [...ok, { start: 0xffffffff80001000n, size: 0x10, rva: 0x400 }],
      'a start at 2^52': [...ok, { start: 2n ** 52n, size: 0x10, rva: 0x400 }],
    };
    for (const [why, descriptors] of Object.entries(refused)) {
      const ctx = context(listStream(descriptors), fileSize);
      expect(memoryListView(ctx), why).to.equal(undefined);
    }
    // A count the stream's bytes do not hold, and an empty list.
    expect(memoryListView(context(listStream(ok, 4), fileSize))).to.equal(undefined);
    expect(memoryListView(context(listStream([]), fileSize))).to.equal(undefined);
  });

  it("takes the examples' Wine minidumps (4,619 and 5,298 ranges) and maps them as the merge does", function () {
    for (const name of ['av-write-a.dmp', 'cpp-throw.dmp']) {
      const bytes = readFileSync(join(REPO_ROOT, 'examples', 'dumps', name));
      // The directory (header RVA at 12, count at 8) names the MemoryList (type 5).
      const streams = bytes.readUInt32LE(8);
      const directory = bytes.readUInt32LE(12);
      let rva = 0;
      let size = 0;
      for (let i = 0; i < streams; i++) {
        if (bytes.readUInt32LE(directory + i * 12) !== 5) continue;
        size = bytes.readUInt32LE(directory + i * 12 + 4);
        rva = bytes.readUInt32LE(directory + i * 12 + 8);
      }
      const ctx = context(bytes.subarray(rva, rva + size), bytes.length);
      const view = memoryListView(ctx);
      expect(view, name).to.not.equal(undefined);
      const map = MemoryMap.fromListView(view!);
      expect(map.stats.rangeCount, name).to.be.greaterThan(4000);
      expectSameMap(map, merged(ctx), name);
    }
  });
});
