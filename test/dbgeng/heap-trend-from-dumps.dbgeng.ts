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
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

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
});
