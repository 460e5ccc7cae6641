// heap-trend --clr --engine dotnet-dump against the real CLR program on Linux (its `sessions`
// mode), with the real dotnet-dump: the program says what it holds (`sessions tick=N live=M`,
// `large bytes=N`), and the report must agree: the growing type first and flagged, the big
// object allocated once not flagged, the evicting cache flagging nothing, and the chain that
// holds the growing objects naming the dictionary.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { assertValid } from '../../src/report/schemas.js';
import { runHeapTrend } from '../../src/workflows/heap-trend/run-heap-trend.js';
import {
  DOTNET_TOOLS_DIR,
  nativeDotnetSuite,
  startSessions,
  type NativeDotnet,
} from '../helpers/dotnet-native.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const DICTIONARY =
  'System.Collections.Generic.Dictionary<System.Guid, CdbHarness.Targets.SessionState>';

describe('heap-trend --clr --dump-per-sample with dotnet-dump (real .NET program on Linux)', function () {
  nativeDotnetSuite(this);

  /** heap-trend --clr over the program: `samples` dumps `intervalMs` apart, into a new folder. */
  async function trend(
    target: NativeDotnet,
    samples: number,
    intervalMs: number,
    keep = false,
    retentionBudgetMs?: number,
  ) {
    const outDir = makeTempDir('heap-trend-clr');
    const result = await runHeapTrend({
      pid: target.pid,
      engine: 'dotnet-dump',
      intervalMs,
      samples,
      outDir,
      env: target.env,
      debuggerPath: DOTNET_TOOLS_DIR,
      keepDumps: keep,
      ...(retentionBudgetMs === undefined ? {} : { retentionBudgetMs }),
      // The old path, kept as an option: a heap dump read by SOS every sample (the tiers are
      // tested in dotnet-tiers-e2e.test.ts).
      dumpPerSample: true,
    });
    return { ...result, outDir };
  }

  it('ranks the growing type first, flags it, leaves the once-allocated big array alone, and names the dictionary that holds it', async () => {
    const target = await startSessions({
      intervalMs: 40,
      sessionKb: 16,
      largeKb: 8192,
      ticks: 0,
      afterTick: 5,
    });
    const { report, samples, outDir: out } = await trend(target, 5, 1000);
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(report.seriesKind).to.equal('clr-generation');
    expect(samples).to.have.length(5);
    // Each sample stopped the target while createdump held its threads: measured from the
    // target's thread states, never longer than the collect that holds it.
    for (const sample of samples) {
      expect(sample.suspendedHow).to.equal('measured');
      expect(sample.suspendedMs).to.be.greaterThan(0);
      expect(sample.suspendedMs).to.be.at.most(sample.suspendedUpperBoundMs ?? 0);
    }
    expect(report.suspension.how).to.equal('measured');
    // The spacing achieved is reported beside the one asked for.
    expect(report.cadence?.askedMs).to.equal(1000);
    expect(report.cadence?.medianMs).to.be.at.least(1000);
    // The verdict leads with the growing type, and report.md opens with it.
    expect(report.verdict?.kind).to.equal('leak');
    expect(report.verdict?.suspects[0]?.kind).to.equal('clr-type');

    const types = report.clrTypes;
    expect(types?.kind).to.equal('clr-type');
    const first = types?.series[0];
    expect(first?.id).to.equal('System.Byte[]');
    expect(first?.suspect).to.equal(true);
    // The program's own count of live sessions, against the objects of the type in the dumps.
    const sessions = types?.series.find((s) => s.id === 'CdbHarness.Targets.SessionState');
    expect(sessions?.countLast).to.be.greaterThan(sessions?.countFirst ?? Infinity);
    // 8 MB allocated once and held: biggest type of all in the first sample, never a suspect.
    const blob = types?.series.find((s) => s.id === 'System.Int64[]');
    expect(blob?.firstKb).to.be.at.least(8192);
    expect(blob?.suspect).to.equal(false);
    const loh = report.series.find((s) => s.id === 'loh');
    expect(loh?.suspect).to.equal(false);

    const held = report.retention?.find((r) => r.type === 'System.Byte[]');
    expect(held?.sampled).to.be.greaterThan(0);
    const chains = (held?.roots ?? []).map((r) => r.chain.join(' ← '));
    expect(
      chains.some((c) => c.includes('CdbHarness.Targets.SessionState') && c.includes(DICTIONARY)),
    ).to.equal(true);

    // The sample dumps are gone once read (no --keep-dumps).
    expect(readdirSync(join(out, 'dumps'))).to.deep.equal([]);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).to.include('System.Byte[]');
  });

  it('checks SOS’s static label against the classes’ statics: SessionCache.Entries, where SOS says List<String>.Ballast', async () => {
    // The issue 32 shape: the dictionary in SessionCache.Entries, declared after a constant
    // List<string> SessionCache.Ballast; gcroot labels the dictionary with the Ballast field.
    const target = await startSessions({
      intervalMs: 40,
      sessionKb: 16,
      ticks: 0,
      afterTick: 5,
      cache: { ballast: 2000 },
    });
    // Five SOS batches on a loaded machine: a budget past the default 60 s.
    const { report } = await trend(target, 3, 1000, false, 300_000);
    expect(report.status).to.equal('completed');
    const held = report.retention?.find((r) => r.type === 'System.Byte[]');
    const top = held?.roots.find((r) => r.staticLabel !== undefined);
    expect(top?.holder, JSON.stringify(held)).to.equal(DICTIONARY);
    expect(top?.staticLabel).to.equal(
      'static variable: System.Collections.Generic.List<System.String>.Ballast',
    );
    expect(top).to.include({
      labelChecked: true,
      staticField: 'CdbHarness.Targets.SessionCache.Entries',
      labelAgrees: false,
    });
    expect(top?.chain.join(' ← ')).to.include(
      `${DICTIONARY} (static variable: CdbHarness.Targets.SessionCache.Entries, checked; SOS said System.Collections.Generic.List<System.String>.Ballast)`,
    );
    const group = report.retentionGroups?.find((g) =>
      g.types.some((t) => t.type === 'System.Byte[]'),
    );
    expect(group?.text).to.include('CdbHarness.Targets.SessionCache.Entries, checked');
    expect(group?.text).to.not.include("SOS's guess");
  });

  it('a cache that evicts (--keep 20) flags no type, and --keep-dumps keeps every sample dump', async () => {
    const target = await startSessions({
      intervalMs: 40,
      sessionKb: 16,
      keep: 20,
      ticks: 0,
      afterTick: 25,
    });
    const { report, samples, outDir: out } = await trend(target, 4, 1000, true);
    expect(report.status).to.equal('completed');
    expect(report.clrTypes?.series.filter((s) => s.suspect).map((s) => s.id)).to.deep.equal([]);
    expect(report.retention ?? []).to.deep.equal([]);
    // A sample's time is when its dump was taken: before the dump file's last write, not after
    // its analysis.
    for (const sample of samples) {
      expect(Date.parse(sample.time)).to.be.at.most(statSync(sample.dumpFile ?? '').mtimeMs);
    }
    expect(readdirSync(join(out, 'dumps')).sort()).to.deep.equal([
      'sample-0000.core',
      'sample-0001.core',
      'sample-0002.core',
      'sample-0003.core',
    ]);
  });

  it('a target that exits mid-run: status target-exited, the samples before it reported', async () => {
    // About 2.5 s of life after the first tick.
    const target = await startSessions({ intervalMs: 50, sessionKb: 16, ticks: 50, afterTick: 1 });
    const { report } = await trend(target, 8, 1500);
    expect(report.status).to.equal('target-exited');
    expect(report.sampleCount).to.be.within(1, 7);
    expect(report.message).to.match(/pid \d+/);
    assertValid('heapTrendReport', report);
  });
});
