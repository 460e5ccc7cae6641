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
      samples: 8,
      typesEvery: 2,
      outDir,
      env: target.env,
      debuggerPath: DOTNET_TOOLS_DIR,
      // A gcdump takes seconds on a busy machine, and the next one waits for it: two typed
      // samples (the first snapshot and the last) are what is sure to be there.
      rule: { minSamples: 2 },
    });
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(samples).to.have.length(8);
    // Sizes: the runtime's counters, every sample, never a stop.
    expect(report.tiers?.series).to.deep.include({ tier: 'counters', samples: 8, every: 1 });
    for (const s of samples) {
      expect(s.tiers?.heaps).to.equal('counters');
      expect(s.heaps.map((h) => h.id)).to.include.members(['gen0', 'gen1', 'gen2', 'loh']);
      expect(s.counters?.gcHeapSizeKb).to.be.greaterThan(0);
    }
    const sizesOnly = samples.filter((s) => s.clrTypes === undefined);
    expect(sizesOnly.length).to.be.greaterThan(0);
    for (const s of sizesOnly) {
      expect(s.suspendedMs).to.equal(0);
      expect(s.suspendedHow).to.equal('never');
    }
    // Types: gcdumps taken in the background, each in the sample after it finished, at its own
    // time; the last sample always has one.
    const typed = samples.filter((s) => s.clrTypes !== undefined);
    expect(typed.length).to.be.at.least(2);
    expect(typed[typed.length - 1]?.index).to.equal(7);
    expect(report.tiers?.clrTypes).to.deep.include({ tier: 'gcdump', every: 2 });
    for (const s of typed) {
      expect(s.tiers?.clrTypes).to.equal('gcdump');
      expect(s.gcdumpBytes).to.be.greaterThan(0);
      expect(s.suspendedHow).to.be.oneOf(['upper-bound', 'measured']);
      expect(s.suspendedMs).to.be.greaterThan(0);
    }
    const first = report.clrTypes?.series[0];
    expect(first?.id).to.equal('System.Byte[]');
    expect(first?.suspect).to.equal(true);
    // 8 MB allocated once and held: in every snapshot, never flagged.
    for (const s of typed) {
      expect(s.clrTypes?.find((t) => t.id === 'System.Int64[]')?.committedKb).to.be.at.least(8192);
    }
    const flagged = report.clrTypes?.series.filter((s) => s.suspect).map((s) => s.id);
    expect(flagged).to.not.include('System.Int64[]');
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
