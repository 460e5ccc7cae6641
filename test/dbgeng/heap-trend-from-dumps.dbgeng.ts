// heap-trend --from-dumps over full dumps written by the real Debugger Engine (`.dump /ma` in a
// noninvasive attach, build/dbgeng/cdb under Wine) of leak.exe, which leaks 64 KB of its
// HeapCreate heap every 100 ms after one 3 MB block and prints its own HeapWalk (HEAPSTAT). Read
// with no debugger: a series per heap (each walked to its sub-heaps and large blocks,
// processor/heap-walk.ts) names the private heap; by category the heap grows, image does not.
import { expect } from 'chai';
import { join } from 'node:path';
import { processDump } from '../../src/processor/process-dump.js';
import { assertValid } from '../../src/report/schemas.js';
import { dumpProcess } from '../../src/workflows/dump/dump.js';
import { runHeapTrendFromDumps } from '../../src/workflows/heap-trend/from-dumps.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, sleep, startTarget, wineEnv } from '../helpers/wine.js';
import { DOTNET_TOOLS_DIR } from '../helpers/dotnet-native.js';
import {
  clrProgram,
  DBGENG_CDB,
  requireDbgengRig,
  startClrProgram,
  type ClrTarget,
} from './dbgeng-rig.js';

describe('heap-trend --from-dumps over real Debugger Engine full dumps (Wine)', function () {
  this.timeout(240_000);
  before(() => requireDbgengRig());
  afterEach(() => killAllTargets());

  it('a series per heap names the growing private heap; the heap category grows, private data and image do not', async () => {
    // 64 KB a tick fills the HeapCreate heap's first sub-heap and makes more; the 3 MB block
    // allocated first is on its large-block list.
    const target = await startTarget('leak', ['64', '100', '0', '3072']);
    const heapLine = await target.waitForLine(/^HEAP /);
    const largeLine = await target.waitForLine(/^LARGE /);
    await target.waitForLine(/^HEAPSTAT tick=2 /);
    const privateHeap = `0x${BigInt(`0x${heapLine.split(' ')[1] ?? ''}`).toString(16)}`;
    const large = BigInt(`0x${largeLine.split(' ')[1] ?? ''}`);
    const dir = makeTempDir('from-dumps-dbgeng');
    for (let i = 0; i < 4; i++) {
      const result = await dumpProcess({
        engine: 'cdb',
        target: { pid: target.pid },
        list: () => Promise.resolve([{ pid: target.pid, name: 'leak.exe' }]),
        kind: 'full',
        outDir: join(dir, `d${i}`),
        debuggerPath: DBGENG_CDB,
        env: wineEnv(),
      });
      expect(result.verified).to.equal(true);
      // Minidump times are whole seconds: the next dump must be at least a second later.
      await sleep(2000);
    }
    const out = makeTempDir('from-dumps-dbgeng-out');
    const { report, series, samples } = await runHeapTrendFromDumps({
      paths: [0, 1, 2, 3].map((i) => join(dir, `d${i}`)),
      outDir: out,
    });
    assertValid('heapTrendReport', report);
    expect(report.engine).to.equal('builtin');
    expect(report.sampleCount).to.equal(4);
    // Per heap, as `!heap -s -h 0` lists them: the HeapCreate heap leads the verdict.
    expect(report.seriesKind).to.equal('heap');
    expect(report.verdict?.kind).to.equal('leak');
    expect(report.verdict?.suspects[0]).to.include({ kind: 'heap', id: privateHeap });
    const grown = report.series.find((s) => s.id === privateHeap);
    expect(grown?.suspect).to.equal(true);
    for (const s of report.series) if (s.id !== privateHeap) expect(s.suspect).to.equal(false);
    // Its large block and its later sub-heaps are in it from the first dump on.
    for (const sample of samples) {
      expect(sample.heaps.find((h) => h.id === privateHeap)?.committedKb).to.be.greaterThan(3072);
    }
    // By category beside it: the heap grows with the leak; private data and image do not.
    const heap = report.categories?.series.find((s) => s.id === 'heap');
    const privateData = report.categories?.series.find((s) => s.id === 'private data');
    const image = report.categories?.series.find((s) => s.id === 'image');
    expect(heap?.suspect).to.equal(true);
    expect(heap?.growthKb).to.be.greaterThan(512);
    expect(privateData?.suspect).to.equal(false);
    expect(image?.growthKb).to.equal(0);
    // Each dump's walk against the program's own HeapWalk (HEAPSTAT, printed every tick; the
    // dump stops the program between two ticks): its sub-heaps' committed and reserved bytes are
    // exactly a tick's `committed` and `committed + uncommitted`; the large block is where the
    // program put it; the last dump has more than one sub-heap.
    const log = target.log();
    for (const sample of samples) {
      const state = await processDump(sample.dumpFile ?? '', { threads: 'none', regions: true });
      if (!state.ok) throw new Error(state.error.message);
      const walked = state.regions?.heapWalk?.heaps.find(
        (h) => `0x${h.base.toString(16)}` === privateHeap,
      );
      expect(walked).to.include({ layout: 'wine', walk: 'complete', largeBlocks: 1 });
      const regions = walked?.parts.filter((p) => p.kind !== 'large-block') ?? [];
      const committed = regions.reduce((n, p) => n + p.committedBytes, 0);
      const reserved = regions.reduce((n, p) => n + p.reservedBytes, 0);
      expect(log).to.include(` committed=${committed} uncommitted=${reserved - committed} `);
      const block = walked?.parts.find((p) => p.kind === 'large-block');
      expect(Number(large - (block?.allocationBase ?? 0n))).to.be.within(0, 0x1000);
      if (sample === samples[3]) expect(walked?.subHeaps).to.be.greaterThan(1);
    }
    expect(report.warnings).to.deep.equal([]);
    // Each dump is read in a few hundred KB, whatever its size.
    for (const bytes of series.bytesRead) expect(bytes).to.be.below(10 * 1024 * 1024);
  });

  it('a .NET program`s full dump: the GC heap is looked up with dotnet-dump, and where it cannot be, the report says why', async function () {
    const exe = clrProgram();
    if (exe === null) {
      console.log('      (skipped: no build/dotnet/win-x64/cdbh-dotnet.exe)');
      this.skip();
    }
    const target: ClrTarget = await startClrProgram(exe, [
      'sessions',
      '-n',
      '0',
      '-i',
      '40',
      '--session-kb',
      '16',
      '--large-kb',
      '4096',
    ]);
    try {
      const dir = makeTempDir('from-dumps-dbgeng-clr');
      const result = await dumpProcess({
        engine: 'cdb',
        target: { pid: target.pid },
        list: () => Promise.resolve([{ pid: target.pid, name: 'cdbh-dotnet.exe' }]),
        kind: 'full',
        outDir: dir,
        debuggerPath: DBGENG_CDB,
        env: wineEnv(),
      });
      expect(result.verified).to.equal(true);
      const out = makeTempDir('from-dumps-dbgeng-clr-out');
      const { report, samples } = await runHeapTrendFromDumps({
        paths: [dir],
        outDir: out,
        debuggerPath: DOTNET_TOOLS_DIR,
      });
      assertValid('heapTrendReport', report);
      // Wine's heaps are walked: a series per heap, memory by category beside it.
      expect(report.seriesKind).to.equal('heap');
      const ids = samples[0]?.categories?.map((h) => h.id) ?? [];
      expect(ids).to.include('private data');
      if (process.platform === 'win32') {
        expect(ids).to.include('managed heap');
      } else {
        // dotnet-dump reads Windows dumps on Windows only; its own words are in the warning.
        expect(ids).to.not.include('managed heap');
        expect(report.warnings.join('\n')).to.match(
          /managed heap not split out of private data: dotnet-dump eeheap -gc on .*: Analyzing Windows or MacOS dumps not supported when running on Linux/,
        );
      }
    } finally {
      await target.kill();
    }
  });
});
