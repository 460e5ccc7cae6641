// heap-trend --clr on Linux in tiers (issue 32) against the real CLR program's `sessions` mode,
// with the real dotnet-gcdump from NuGet: sizes every sample, types from a gcdump every K samples
// (and the first and last), retention once at the end from the last gcdump's object graph. The
// program says what it holds (`sessions tick=N live=M`), and the report must agree.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertValid } from '../../src/report/schemas.js';
import { runHeapTrend } from '../../src/workflows/heap-trend/run-heap-trend.js';
import { DOTNET_TOOLS_DIR, nativeDotnetSuite, startSessions } from '../helpers/dotnet-native.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const LIVE =
  'static field Live (a System.Collections.Generic.Dictionary<System.Guid,CdbHarness.Targets.SessionState>)';

describe('heap-trend --clr in tiers: gcdump types and graph retention (real .NET program on Linux)', function () {
  nativeDotnetSuite(this);

  it('types every K samples and at the ends, the growing type flagged, its root named, the first and last gcdumps kept', async () => {
    const target = await startSessions({
      intervalMs: 40,
      sessionKb: 16,
      largeKb: 8192,
      ticks: 0,
      afterTick: 5,
    });
    const outDir = makeTempDir('heap-trend-tiers');
    const { report, samples } = await runHeapTrend({
      pid: target.pid,
      engine: 'dotnet-dump',
      intervalMs: 1000,
      samples: 5,
      typesEvery: 2,
      outDir,
      env: target.env,
      debuggerPath: DOTNET_TOOLS_DIR,
    });
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(samples).to.have.length(5);
    const typed = samples.filter((s) => s.clrTypes !== undefined).map((s) => s.index);
    // No counters client here: every sample is a gcdump, its sizes the heap total.
    expect(report.tiers?.clrTypes?.tier).to.equal('gcdump');
    expect(typed.length).to.be.at.least(3);
    expect(typed).to.include.members([0, 4]);
    for (const s of samples.filter((x) => x.clrTypes !== undefined)) {
      expect(s.tiers?.clrTypes).to.equal('gcdump');
      expect(s.gcdumpBytes).to.be.greaterThan(0);
      expect(s.suspendedHow).to.be.oneOf(['upper-bound', 'measured']);
    }
    const first = report.clrTypes?.series[0];
    expect(first?.id).to.equal('System.Byte[]');
    expect(first?.suspect).to.equal(true);
    const blob = report.clrTypes?.series.find((s) => s.id === 'System.Int64[]');
    expect(blob?.firstKb).to.be.at.least(8192);
    expect(blob?.suspect).to.equal(false);
    // Every payload of every session, counted in the last graph, held by the static dictionary,
    // more of them than in the first graph.
    const held = report.retention?.find((r) => r.type === 'System.Byte[]');
    expect(held?.from).to.equal('gcdump-graph');
    const top = held?.roots[0];
    expect(top?.root).to.equal(LIVE);
    expect(top?.chain[1]).to.equal('CdbHarness.Targets.SessionState');
    expect(top?.count).to.be.greaterThan(top?.countFirst ?? Infinity);
    const live = Number(
      /live=(\d+)/.exec(target.lines().findLast((l) => l.startsWith('sessions tick=')) ?? '')?.[1],
    );
    expect(top?.count).to.be.at.most(live);
    expect(report.tiers?.retention?.tier).to.equal('gcdump');
    // The first and the last gcdumps stay; the ones between are gone.
    const kept = readdirSync(join(outDir, 'gcdumps')).sort();
    expect(kept).to.have.length(2);
    expect(kept[0]).to.equal('sample-0000.gcdump');
    expect(readFileSync(join(outDir, 'report.md'), 'utf8')).to.include('static field Live');
  });

  it('--dump-per-sample is still there: a heap dump per sample, types from SOS', async () => {
    const target = await startSessions({ intervalMs: 40, sessionKb: 16, ticks: 0, afterTick: 3 });
    const { report } = await runHeapTrend({
      pid: target.pid,
      engine: 'dotnet-dump',
      intervalMs: 1000,
      samples: 2,
      outDir: makeTempDir('heap-trend-dumps'),
      env: target.env,
      debuggerPath: DOTNET_TOOLS_DIR,
      dumpPerSample: true,
      retentionTypes: 0,
    });
    expect(report.status).to.equal('completed');
    expect(report.tiers).to.equal(undefined);
    expect(report.clrTypes?.series.length).to.be.greaterThan(0);
  });
});
