// heap-trend --from-dumps over full dumps written by the real Debugger Engine (`.dump /ma` in a
// noninvasive attach, build/dbgeng/cdb under Wine) of leak.exe, which leaks 256 KB of heap every
// 200 ms and prints its own HeapWalk (HEAPSTAT). Memory by category, read with no debugger: the
// heap category grows with the leak, image does not.
import { expect } from 'chai';
import { join } from 'node:path';
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

  it('the heap or private-data category grows with the leak, image does not', async () => {
    const target = await startTarget('leak', ['256', '200', '0']);
    await target.waitForLine(/^HEAPSTAT tick=2 /);
    const dir = makeTempDir('from-dumps-dbgeng');
    for (let i = 0; i < 3; i++) {
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
      paths: [0, 1, 2].map((i) => join(dir, `d${i}`)),
      outDir: out,
    });
    assertValid('heapTrendReport', report);
    expect(report.engine).to.equal('builtin');
    expect(report.seriesKind).to.equal('category');
    expect(report.sampleCount).to.equal(3);
    const heap = report.series.find((s) => s.id === 'heap');
    const image = report.series.find((s) => s.id === 'image');
    const privateData = report.series.find((s) => s.id === 'private data');
    expect((heap?.growthKb ?? 0) + (privateData?.growthKb ?? 0)).to.be.greaterThan(512);
    // Wine leaves PEB.ProcessHeaps empty: the heaps are found by their segment signature, the
    // leaking HeapCreate heap among them, so the heap category is never 0 and grows.
    for (const sample of samples) {
      expect(sample.heaps.find((h) => h.id === 'heap')?.committedKb).to.be.greaterThan(0);
    }
    expect(heap?.growthKb).to.be.greaterThan(0);
    expect(image?.growthKb).to.equal(0);
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
      expect(report.seriesKind).to.equal('category');
      const ids = samples[0]?.heaps.map((h) => h.id) ?? [];
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
