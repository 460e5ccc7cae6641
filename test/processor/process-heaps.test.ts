// processHeaps over small amd64 full dumps built byte by byte: the heaps the PEB lists, the PEB's
// default heap, and, when the PEB's list is empty (as Wine leaves it), the private allocations
// whose header carries the segment signature 0xFFEEFFEE at +0x10. The real-dump counterpart (a
// Debugger Engine `.dump /ma` of a Wine process) is test/dbgeng/heap-trend-from-dumps.dbgeng.ts.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMinidump } from '../../src/minidump/index.js';
import { processHeaps } from '../../src/processor/process-heaps.js';
import { processDump } from '../../src/processor/process-dump.js';
import {
  DumpBuilder,
  memory64List,
  memoryInfoList,
  struct,
} from '../minidump/helpers/dump-builder.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const TEB = 0x10000n;
const PEB = 0x20000n;
/** Private allocations of 64 KB from 0x100000 up. */
const ALLOC = (i: number): bigint => 0x100000n + BigInt(i) * 0x10000n;

interface Plan {
  /** PEB.ProcessHeaps entries (written to an array at PEB+0x800). */
  listed: bigint[];
  processHeap: bigint;
  /** Allocation indexes whose first page carries the heap signature. */
  signed: number[];
  /** Allocation indexes signed at +0x10 of their second region only (no header there). */
  signedInSecondRegion?: number[];
  allocations: number;
  /** A ThreadList of one thread whose TEB is TEB (what processDump starts from). */
  thread?: boolean;
  /** Before that thread, one whose TEB the dump recorded as 0. */
  tebLessFirst?: boolean;
}

function page(fill: (b: Buffer) => void): Buffer {
  const b = Buffer.alloc(0x1000);
  fill(b);
  return b;
}

/** TEB, PEB, then `allocations` private allocations of two 32 KB regions each (first 4 KB captured). */
function build(plan: Plan): Buffer {
  const b = new DumpBuilder(plan.thread === true ? 5 : 4);
  if (plan.thread === true) {
    // MINIDUMP_THREADs (minidumpapiset.h, 48 bytes): id, then Teb at +16, its stack at +24.
    const tebs = plan.tebLessFirst === true ? [0n, TEB] : [TEB];
    b.stream(
      3,
      struct(4 + 48 * tebs.length, (s) => {
        s.writeUInt32LE(tebs.length, 0);
        tebs.forEach((teb, i) => {
          s.writeUInt32LE(0x42 + i, 4 + 48 * i);
          s.writeBigUInt64LE(teb, 4 + 48 * i + 16);
          s.writeBigUInt64LE(ALLOC(0), 4 + 48 * i + 24);
        });
      }),
    );
  }
  b.stream(
    7,
    struct(56, (s) => s.writeUInt16LE(9, 0)),
  ); // AMD64
  const pages: [bigint, Buffer][] = [
    [TEB, page((t) => t.writeBigUInt64LE(PEB, 0x60))],
    [
      PEB,
      page((p) => {
        p.writeBigUInt64LE(plan.processHeap, 0x30);
        p.writeUInt32LE(plan.listed.length, 0xe8);
        p.writeBigUInt64LE(plan.listed.length === 0 ? 0n : PEB + 0x800n, 0xf0);
        plan.listed.forEach((h, i) => p.writeBigUInt64LE(h, 0x800 + 8 * i));
      }),
    ],
  ];
  const regions: [bigint, bigint, bigint][] = [
    [TEB, TEB, 0x1000n],
    [PEB, PEB, 0x1000n],
  ];
  for (let i = 0; i < plan.allocations; i++) {
    const signed = plan.signed.includes(i);
    pages.push([ALLOC(i), page((h) => signed && h.writeUInt32LE(0xffeeffee, 0x10))]);
    const second = ALLOC(i) + 0x8000n;
    const late = plan.signedInSecondRegion?.includes(i) === true;
    pages.push([second, page((h) => late && h.writeUInt32LE(0xffeeffee, 0x10))]);
    regions.push([ALLOC(i), ALLOC(i), 0x8000n], [second, ALLOC(i), 0x8000n]);
  }
  b.stream(
    16,
    memoryInfoList(
      regions.map(([base, allocationBase, size]) => ({
        base,
        allocationBase,
        size,
        state: 0x1000, // MEM_COMMIT
      })),
    ),
  );
  const writeList = memory64List(b, pages);
  b.stream(0xfff0, Buffer.alloc(4));
  const dump = b.build({ flags: 0x2n | 0x800n });
  writeList(dump);
  return dump;
}

async function heapsOf(plan: Plan): Promise<bigint[]> {
  const path = join(makeTempDir('process-heaps'), 'built.dmp');
  writeFileSync(path, build(plan));
  const dump = await openMinidump(path);
  try {
    return await processHeaps(dump, TEB);
  } finally {
    await dump.close();
  }
}

describe('processHeaps', function () {
  it('takes the heaps the PEB lists and its default heap, and probes nothing when the list has some', async () => {
    const heaps = await heapsOf({
      listed: [ALLOC(0), ALLOC(1)],
      processHeap: ALLOC(2),
      signed: [3],
      allocations: 4,
    });
    expect(heaps).to.have.members([ALLOC(0), ALLOC(1), ALLOC(2)]);
  });

  it('finds the heaps by their segment signature when the PEB lists none (Wine)', async () => {
    const heaps = await heapsOf({
      listed: [],
      processHeap: ALLOC(1),
      signed: [1, 4],
      signedInSecondRegion: [2],
      allocations: 6,
    });
    expect(heaps).to.have.members([ALLOC(1), ALLOC(4)]);
  });

  it('gives no heap when the PEB lists none and no allocation is signed', async () => {
    expect(
      await heapsOf({ listed: [], processHeap: 0n, signed: [], allocations: 3 }),
    ).to.deep.equal([]);
  });

  it('reaches heap-trend through processDump({ regions: true }): the regions and the same heaps, no walk', async () => {
    const path = join(makeTempDir('process-heaps'), 'threaded.dmp');
    const plan = { listed: [ALLOC(0)], processHeap: ALLOC(1), signed: [2], allocations: 3 };
    writeFileSync(path, build({ ...plan, thread: true }));
    const state = await processDump(path, { threads: 'none', regions: true });
    if (!state.ok) throw new Error(state.error.message);
    expect(state.regions?.heaps).to.have.members([ALLOC(0), ALLOC(1)]);
    expect(state.regions?.regions?.map((r) => r.baseAddress)).to.include(ALLOC(2) + 0x8000n);
    expect(state.threads[0]?.callStack).to.equal(undefined);
    // A first thread without a TEB: the PEB is found through the next one.
    const later = join(makeTempDir('process-heaps'), 'teb-less-first.dmp');
    writeFileSync(later, build({ ...plan, thread: true, tebLessFirst: true }));
    const second = await processDump(later, { threads: 'none', regions: true });
    expect(second.ok && second.regions?.heaps).to.have.members([ALLOC(0), ALLOC(1)]);
    // Asked for only: other callers read no heap.
    const plain = await processDump(path, { threads: 'none' });
    expect(plain.ok && plain.regions).to.equal(undefined);
  });
});
