// heap-trend --from-dumps' series per heap, through the whole path (processDump's heap walk,
// native-heaps.ts, dump-series.ts) over small amd64 full dumps built byte by byte: a Wine 8 heap
// (the layout processor/heap-walk.ts reads, checked on real dumps in
// test/dbgeng/heap-trend-from-dumps.dbgeng.ts) that gains a sub-heap per dump and holds a large
// block, beside a flat VirtualAlloc'd allocation. Before the walk, the later sub-heaps and the
// large block counted as private data and the heap category stayed at the base allocation. A
// Windows NT heap (signature, no Wine header) is not walked: the series is by category, as
// before, and a warning says why.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDumpSeries } from '../../../src/workflows/heap-trend/dump-series.js';
import { heapNoteLines } from '../../../src/workflows/heap-trend/native-heaps.js';
import {
  DumpBuilder,
  memory64List,
  memoryInfoList,
  struct,
} from '../../minidump/helpers/dump-builder.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const TEB = 0x10000n;
const PEB = 0x20000n;
const HEAP = 0x1000000n;
const LARGE = 0x1800000n;
const DATA = 0x1c00000n;
const SUBHEAP = (i: number): bigint => 0x2000000n + BigInt(i) * 0x400000n;
const MB = 0x100000n;

type Region = [base: bigint, allocationBase: bigint, size: bigint, state: number];

function page(fill: (b: Buffer) => void): Buffer {
  const b = Buffer.alloc(0x1000);
  fill(b);
  return b;
}

/** `struct list` {next, prev} links, as [address, value] pairs, for a head and its entries. */
function ring(head: bigint, entries: readonly bigint[]): [bigint, bigint][] {
  const all = [head, ...entries];
  return all.flatMap((at, i): [bigint, bigint][] => [
    [at, all[(i + 1) % all.length] ?? head],
    [at + 8n, all[(i + all.length - 1) % all.length] ?? head],
  ]);
}

/** A full dump whose heap has `extra` sub-heaps past its base; `wine: false` signs it as NT. */
function build(extra: number, timestamp: number, wine = true): Buffer {
  const b = new DumpBuilder(5);
  // One MINIDUMP_THREAD (minidumpapiset.h): id, then Teb at +16, its stack at +24.
  b.stream(
    3,
    struct(4 + 48, (s) => {
      s.writeUInt32LE(1, 0);
      s.writeUInt32LE(0x42, 4);
      s.writeBigUInt64LE(TEB, 4 + 16);
      s.writeBigUInt64LE(DATA, 4 + 24);
    }),
  );
  b.stream(
    7,
    struct(56, (s) => s.writeUInt16LE(9, 0)),
  ); // AMD64
  const subheaps = Array.from({ length: extra }, (_, i) => SUBHEAP(i));
  const words: [bigint, bigint][] = [
    [TEB + 0x60n, PEB],
    [PEB + 0x30n, HEAP], // PEB.ProcessHeap; NumberOfHeaps 0 and ProcessHeaps NULL, as under Wine
    ...ring(HEAP + 0x78n, []),
    ...ring(HEAP + 0x88n, [HEAP + 0x338n + 0x18n, ...subheaps.map((s) => s + 8n + 0x18n)]),
    ...ring(HEAP + 0x98n, [LARGE + 0x10n]),
    [HEAP + 0x338n + 0x28n, HEAP],
    ...subheaps.map((s): [bigint, bigint] => [s + 8n + 0x28n, HEAP]),
  ];
  const pages = new Map<bigint, Buffer>();
  for (const [address, value] of words) {
    const base = address & ~0xfffn;
    const p = pages.get(base) ?? page(() => undefined);
    p.writeBigUInt64LE(value, Number(address - base));
    pages.set(base, p);
  }
  const header = pages.get(HEAP) ?? page(() => undefined);
  header.writeUInt32LE(0xffeeffee, 0x10);
  if (wine) header.writeUInt32LE(0x50414548, 0xb8); // 'HEAP'
  pages.set(HEAP, header);
  const regions: Region[] = [
    [TEB, TEB, 0x1000n, 0x1000],
    [PEB, PEB, 0x1000n, 0x1000],
    [HEAP, HEAP, 4n * MB, 0x1000],
    [LARGE, LARGE, 3n * MB, 0x1000],
    [DATA, DATA, 2n * MB, 0x1000],
    ...subheaps.flatMap((s): Region[] => [
      [s, s, MB, 0x1000],
      [s + MB, s, 3n * MB, 0x2000],
    ]),
  ];
  b.stream(
    16,
    memoryInfoList(
      regions.map(([base, allocationBase, size, state]) => ({ base, allocationBase, size, state })),
    ),
  );
  // Memory64List: the pages written above, one after another at the end of the file.
  const writeList = memory64List(
    b,
    [...pages.entries()].sort(([a], [c]) => (a < c ? -1 : 1)),
  );
  const dump = b.build({ flags: 0x2n | 0x800n, timestamp });
  writeList(dump);
  return dump;
}

function series(wine: boolean) {
  const dir = makeTempDir('native-heaps');
  for (let i = 0; i < 3; i++) {
    writeFileSync(join(dir, `d${i}.dmp`), build(i, 1_700_000_000 + 60 * i, wine));
  }
  return readDumpSeries([dir]);
}

describe('heap-trend --from-dumps: a series per heap from walked dumps', () => {
  it('counts each heap`s later sub-heaps and large block: the heap grows, private data does not', async () => {
    const { source, samples, warnings } = await series(true);
    expect(source).to.equal('heap');
    // 4 MB base + 3 MB large block, then 1 MB committed (4 MB reserved) per sub-heap.
    expect(samples.map((s) => s.heaps)).to.deep.equal(
      [0, 1, 2].map((i) => [
        { id: '0x1000000', committedKb: 7168 + 1024 * i, reservedKb: 7168 + 4096 * i },
      ]),
    );
    const category = (i: number, id: string) =>
      samples[i]?.categories?.find((c) => c.id === id)?.committedKb;
    expect([0, 1, 2].map((i) => category(i, 'heap'))).to.deep.equal([7168, 8192, 9216]);
    expect([0, 1, 2].map((i) => category(i, 'private data'))).to.deep.equal([8, 8, 8]);
    expect(warnings).to.deep.equal([]);
  });

  it('a Windows NT heap is not walked: by category as before, with a warning', async () => {
    const { source, samples, warnings } = await series(false);
    expect(source).to.equal('category');
    const category = (i: number, id: string) =>
      samples[i]?.heaps.find((c) => c.id === id)?.committedKb;
    expect([0, 1, 2].map((i) => category(i, 'heap'))).to.deep.equal([4096, 4096, 4096]);
    expect(warnings.join('\n')).to.match(
      /heap 0x1000000: a Windows NT heap \(_HEAP\): its segment list is not walked/,
    );
    expect(warnings.join('\n')).to.match(
      /no series per heap: the heaps of .*d0\.dmp and 2 other dump\(s\) could not be walked/,
    );
  });
});

describe('heapNoteLines', () => {
  it('says each reason once, naming three heaps and counting the rest, across dumps', () => {
    const nt = 'a Windows NT heap (_HEAP): not walked';
    const reading = (heaps: string[], extra: { heap: string; note: string }[] = []) => ({
      rows: [],
      allocations: [],
      walked: false,
      notes: [...heaps.map((heap) => ({ heap, note: nt })), ...extra],
    });
    const lines = heapNoteLines([
      reading(['0x1', '0x2', '0x3', '0x4']),
      reading(['0x1', '0x5'], [{ heap: '0x9', note: 'the list at 0x98 loops back to 0x98' }]),
    ]);
    expect(lines).to.deep.equal([
      `heaps 0x1, 0x2, 0x3 and 2 more: ${nt}`,
      'heap 0x9: the list at 0x98 loops back to 0x98',
    ]);
  });
});
