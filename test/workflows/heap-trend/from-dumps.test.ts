// heap-trend --from-dumps over a real series: four cores of the CLR program's sessions mode written
// by the real `dotnet-dump collect` a second apart, plus a corrupt file and a missing one. The
// report must flag the growing type from the dumps alone, take each sample's time from its dump,
// name the dictionary that holds the objects, and report the bad inputs without stopping.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDialect } from '../../../src/engine/dialects/index.js';
import { assertValid } from '../../../src/report/schemas.js';
import { runHeapTrendFromDumps } from '../../../src/workflows/heap-trend/from-dumps.js';
import { DOTNET_TOOLS_DIR, nativeDotnetSuite, startSessions } from '../../helpers/dotnet-native.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { sleep } from '../../helpers/wine.js';

describe('heap-trend --from-dumps (real dotnet-dump cores)', function () {
  nativeDotnetSuite(this);

  it('flags the growing type from four dumps, in time order, and skips the bad inputs with a warning', async () => {
    const target = await startSessions({
      intervalMs: 40,
      sessionKb: 16,
      largeKb: 4096,
      ticks: 0,
      afterTick: 3,
    });
    const dir = makeTempDir('from-dumps');
    const sampling = getDialect('dotnet-dump').heapSampling;
    if (sampling?.style !== 'dump-per-sample') throw new Error('dotnet-dump samples by dump');
    // Names that sort against time order: the series must follow the dumps' times.
    const names = ['d-first.core', 'c-second.core', 'b-third.core', 'a-fourth.core'];
    for (const name of names) {
      await sampling.collect(target.pid, join(dir, name), {
        timeoutMs: 60_000,
        env: target.env,
        debuggerPath: DOTNET_TOOLS_DIR,
      });
      await sleep(1000);
    }
    await target.kill();
    writeFileSync(join(dir, 'corrupt.core'), Buffer.from('\x7fELF this is no core file'));
    const out = makeTempDir('from-dumps-out');
    const { report, samples } = await runHeapTrendFromDumps({
      paths: [dir, join(dir, 'missing.core')],
      outDir: out,
      env: target.env,
      debuggerPath: DOTNET_TOOLS_DIR,
    });
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(report.engine).to.equal('dotnet-dump');
    // Whose dumps they are, from each core's NT_PRPSINFO note (before: "pid 0").
    expect(report.target).to.deep.equal({ pid: target.pid, name: 'cdbh-dotnet' });
    expect(samples.map((s) => s.dumpFile?.split('/').pop())).to.deep.equal(names);
    expect(samples.map((s) => s.elapsedMs)).to.satisfy((xs: number[]) =>
      xs.every((x, i) => i === 0 || x > (xs[i - 1] ?? 0)),
    );
    const first = report.clrTypes?.series[0];
    expect(first).to.include({ id: 'System.Byte[]', suspect: true });
    expect(report.clrTypes?.series.find((s) => s.id === 'System.Int64[]')?.suspect).to.equal(false);
    const chains = (report.retention?.[0]?.roots ?? []).map((r) => r.chain.join(' ← '));
    expect(
      chains.some((c) => c.includes('Dictionary<System.Guid, CdbHarness.Targets.SessionState>')),
    ).to.equal(true);
    const skipped = (report.inputs ?? [])
      .filter((i) => !i.used)
      .map((i) => i.file.split('/').pop());
    expect(skipped.sort()).to.deep.equal(['corrupt.core', 'missing.core']);
    expect(report.warnings.join('\n')).to.match(/corrupt\.core: skipped: /);
  });
});
