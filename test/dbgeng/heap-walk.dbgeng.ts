// The heap walker (src/processor/heap-walk.ts) on a real full dump and on copies of it made
// hostile: a Debugger Engine `.dump /ma` (build/dbgeng/cdb under Wine) of leak.exe once its
// HeapCreate heap has grown past its first sub-heap, then the same file with the heap's sub-heap
// list and large-block list patched to loop. The walk of the real dump is complete and agrees
// with what the program printed; the patched ones stop at the loop in a few reads, say where, keep
// the parts met before it, and heap-trend --from-dumps goes on with a warning.
import { expect } from 'chai';
import { copyFileSync, openSync, readdirSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { openMinidump } from '../../src/minidump/index.js';
import { processDump } from '../../src/processor/process-dump.js';
import { dumpProcess } from '../../src/workflows/dump/dump.js';
import { runHeapTrendFromDumps } from '../../src/workflows/heap-trend/from-dumps.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, startTarget, wineEnv } from '../helpers/wine.js';
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

// Wine 8.0 win64 `struct heap` offsets, as heap-walk.ts reads them.
const SUBHEAP_LIST = 0x88n;
const LARGE_LIST = 0x98n;

async function walkOf(file: string, heap: bigint) {
  const state = await processDump(file, { threads: 'none', regions: true });
  if (!state.ok) throw new Error(state.error.message);
  const walk = state.regions?.heapWalk;
  return { walk, heap: walk?.heaps.find((h) => h.base === heap) };
}

/** The 8-byte words at `address` in a dump file's captured memory, overwritten in place. */
async function patch(file: string, writes: [bigint, bigint][]): Promise<void> {
  const dump = await openMinidump(file);
  const offsets: [number, bigint][] = [];
  try {
    const map = await dump.memoryMap();
    for (const [address, value] of writes) {
      const [piece] = map.plan(address, 8);
      if (piece === undefined || piece.length < 8) throw new Error(`${address} not captured`);
      offsets.push([piece.fileOffset, value]);
    }
  } finally {
    await dump.close();
  }
  const fd = openSync(file, 'r+');
  try {
    for (const [offset, value] of offsets) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(value);
      writeSync(fd, b, 0, 8, offset);
    }
  } finally {
    closeSync(fd);
  }
}

async function word(file: string, address: bigint): Promise<bigint> {
  const dump = await openMinidump(file);
  try {
    const bytes = await dump.readMemory(address, 8);
    if (bytes === null) throw new Error(`${address} not captured`);
    return bytes.readBigUInt64LE(0);
  } finally {
    await dump.close();
  }
}

describe('heap walk of a real Wine full dump, and of copies made to loop', function () {
  this.timeout(240_000);
  before(() => requireDbgengRig());
  afterEach(() => killAllTargets());

  it('walks the grown heap completely; stops at patched loops in a few reads and says where', async () => {
    // 256 KB every 50 ms: past the first 4 MB sub-heap within the 24 ticks waited for.
    const target = await startTarget('leak', ['256', '50', '0', '2048']);
    const heap = BigInt(`0x${(await target.waitForLine(/^HEAP /)).split(' ')[1] ?? ''}`);
    await target.waitForLine(/^HEAPSTAT tick=24 /);
    const dir = makeTempDir('heap-walk-dbgeng');
    const result = await dumpProcess({
      engine: 'cdb',
      target: { pid: target.pid },
      list: () => Promise.resolve([{ pid: target.pid, name: 'leak.exe' }]),
      kind: 'full',
      outDir: join(dir, 'real'),
      debuggerPath: DBGENG_CDB,
      env: wineEnv(),
    });
    expect(result.verified).to.equal(true);
    await target.kill();
    const [name] = readdirSync(join(dir, 'real')).filter((f) => f.endsWith('.dmp'));
    const real = join(dir, 'real', name ?? '');

    const clean = await walkOf(real, heap);
    expect(clean.heap).to.include({ layout: 'wine', walk: 'complete', largeBlocks: 1 });
    expect(clean.heap?.subHeaps).to.be.greaterThan(1);
    // 24 ticks of 256 KB and the 2 MB block at least.
    expect(clean.heap?.committedBytes).to.be.at.least((24 * 256 + 2048) * 1024);

    // Sub-heap list: its last entry points back at its first (the back links agree up to there).
    const first = await word(real, heap + SUBHEAP_LIST);
    const last = await word(real, heap + SUBHEAP_LIST + 8n);
    // Large-block list: its one entry points at itself.
    const largeEntry = await word(real, heap + LARGE_LIST);
    const looped = join(dir, 'looped.dmp');
    copyFileSync(real, looped);
    await patch(looped, [
      [last, first],
      [largeEntry, largeEntry],
    ]);
    const bad = await walkOf(looped, heap);
    expect(bad.heap?.walk).to.equal('partial');
    expect(bad.heap?.note).to.include(`loops back to 0x${first.toString(16)}`);
    expect(bad.heap?.note).to.include(`loops back to 0x${largeEntry.toString(16)}`);
    // What came before the loops is kept: the base, the later sub-heaps and the large block.
    expect(bad.heap?.parts.map((p) => p.kind).sort()).to.deep.equal(
      clean.heap?.parts.map((p) => p.kind).sort(),
    );
    expect(bad.walk?.entriesRead).to.be.below(100);

    const { report } = await runHeapTrendFromDumps({
      paths: [looped],
      outDir: makeTempDir('heap-walk-dbgeng-out'),
    });
    expect(report.status).to.equal('completed');
    expect(report.seriesKind).to.equal('heap');
    // `heap 0x10a0000: the list at 0x10a0088 loops back to 0x10a0350; …`
    expect(report.warnings.join('\n')).to.match(
      new RegExp(`heap 0x${heap.toString(16)}: the list at 0x[0-9a-f]+ loops back to`),
    );
  });
});
