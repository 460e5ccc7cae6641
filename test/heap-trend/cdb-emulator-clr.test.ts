// heap-trend --clr through cdb + SOS, where SOS's managed host cannot be had (the real Debugger
// Engine under Wine: see the issue note): the cdb emulator stands for cdb, each sample a new
// attach whose `!eeheap -gc` and `!dumpheap -stat -live` replies are the REAL SOS text of one
// running program, recorded with dotnet-dump a second apart (SOS prints the same text under cdb;
// test/fixtures/transcripts/dotnet-dump/series-*; scripts/record-dotnet-dump.sh series). The
// verdict must match the dotnet-dump path: the growing type first and flagged, the big array
// allocated once not flagged. And when SOS cannot load, the reason is given and the native series
// are still reported.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { formatSummary } from '../../src/cli/commands/heap-trend-text.js';
import { assertValid } from '../../src/report/schemas.js';
import { runHeapTrend } from '../../src/workflows/heap-trend/run-heap-trend.js';
import type { DebuggerUse } from '../../src/workflows/heap-trend/sampler.js';
import { emulatorPrefix, Scratch } from '../emulator/emulator-pty.js';
import type { Scenario } from '../emulator/scenario.js';

const HEAP = { transcript: 'heap-s/lowleveldesign-win10-x64-no-lfh-debug-flags.txt' };
const ADDRESS = {
  transcript: 'misc/address-summary-service-fabric-x64-three-sections.txt',
  from: 3,
};
const LOADBY_FAILS = {
  transcript: 'dump-sos-sx/loadby-sos-clr-and-mscorwks-unable-to-find-module.txt',
};

// The real engine under Wine with only sos.dll: SOS loads, its managed commands do not run.
const HOSTING = 'dbgeng/sos-managed-commands-hosting-failed.txt';
const EEHEAP_HOSTING_FAILED = {
  transcript: HOSTING,
  from: 'SOS_HOSTING: Failed to find runtime directory',
  to: "Unrecognized command 'eeheap'",
};
const DUMPHEAP_HOSTING_FAILED = {
  transcript: HOSTING,
  from: "Unrecognized command 'dumpheap'",
  to: "Unrecognized command 'dumpheap'",
};

// A dump taken mid-GC, as the native SOS answered `dumpheap` on it: the one real recording
// (dotnet/diagnostics#3214; SOS prints the same text under cdb).
const MID_GC = {
  transcript: 'misc/dumpheap-mid-gc-issue-3214-linux-netcore31.txt',
  from: 'The garbage collector data structures',
};
const MID_GC_WORDS =
  'The garbage collector data structures are not in a valid state for traversal.';

/** Sample n's scenario, its `!dumpheap -stat -live` answered as on a heap caught mid-GC. */
function midGcScenario(n: number): Scenario {
  const normal = clrScenario(n, true);
  return {
    description: `heap-trend --clr sample ${n}, caught mid-GC`,
    replies: (normal.replies ?? []).map((rule) =>
      rule.command === '!dumpheap -stat -live' ? { ...rule, reply: [MID_GC] } : rule,
    ),
  };
}

/** How SOS answers: as recorded by dotnet-dump, not loaded at all, or loaded without its host. */
type SosMode = 'ok' | 'nosos' | 'hosting-failed';

function clrScenario(n: number, sos: boolean | 'hosting-failed'): Scenario {
  if (sos === 'hosting-failed') {
    return {
      description: `heap-trend --clr sample ${n}, SOS without its managed host`,
      replies: [
        { pattern: '^!heap -s(?: -h 0)?$', reply: [HEAP] },
        { pattern: '^!address -summary$', reply: [ADDRESS] },
        { command: '.loadby sos coreclr' },
        { command: '!eeheap -gc', reply: [EEHEAP_HOSTING_FAILED] },
        { pattern: '^!dumpheap ', reply: [DUMPHEAP_HOSTING_FAILED] },
      ],
    };
  }
  return {
    description: `heap-trend --clr sample ${n}`,
    replies: [
      { pattern: '^!heap -s(?: -h 0)?$', reply: [HEAP] },
      { pattern: '^!address -summary$', reply: [ADDRESS] },
      sos
        ? { command: '.loadby sos coreclr' }
        : { command: '.loadby sos coreclr', reply: [LOADBY_FAILS], error: true },
      { command: '.loadby sos clr', reply: [LOADBY_FAILS], error: true },
      {
        command: '!eeheap -gc',
        reply: [{ transcript: `dotnet-dump/series-eeheap-gc-${n}-linux-net10.txt` }],
      },
      {
        command: '!dumpheap -stat -live',
        reply: [{ transcript: `dotnet-dump/series-dumpheap-stat-live-${n}-linux-net10.txt` }],
      },
      // The retention attach after sample 4: the System.Byte[] objects of that same dump (SOS's
      // real reply, recorded with `-min 16000 -max 17000` added: the 16 KB payloads, in heap
      // order) and `gcroot` of the first of them (its real reply).
      {
        pattern: '^!dumpheap -mt (?:0x)?7f0692f89190 -short$',
        reply: [{ transcript: 'dotnet-dump/series-dumpheap-mt-short-bytes-4-linux-net10.txt' }],
      },
      {
        pattern: '^!gcroot (?:0x)?7efab980e340$',
        reply: [{ transcript: 'dotnet-dump/series-gcroot-payload-4-linux-net10.txt' }],
      },
    ],
  };
}

describe('heap-trend --clr with cdb + SOS (emulator, real recorded SOS text)', function () {
  this.timeout(120_000);
  let scratch: Scratch;
  beforeEach(() => {
    scratch = new Scratch();
  });
  afterEach(() => scratch.cleanup());

  /** `retention`: what the retention attach meets (default: the same SOS as the samples). */
  function run(mode: SosMode, retention: SosMode = mode) {
    const scenarioOf = (m: SosMode, n: number) =>
      scratch.scenario(
        clrScenario(n, m === 'ok' ? true : m === 'nosos' ? false : m),
        `clr-${m}-${n}.json`,
      );
    const scenarios = [1, 2, 3, 4].map((n) => scenarioOf(mode, n));
    const retentionScenario = scenarioOf(retention, 4);
    const sos = `${mode}-${retention}`;
    return runHeapTrend({
      pid: 4242,
      name: 'app.exe',
      engine: 'cdb',
      clr: true,
      intervalMs: 300,
      samples: 4,
      retentionTypes: 1,
      // One object per type: the recording has the roots of the first one.
      retentionObjects: 1,
      outDir: scratch.file(`out-${sos}`),
      debuggerCommandFor: (use: DebuggerUse) => {
        const i = use.purpose === 'sample' ? Math.min(use.index, 3) : 3;
        const prefix = emulatorPrefix(
          use.purpose === 'retention' ? retentionScenario : (scenarios[i] ?? ''),
        );
        return {
          file: prefix.file,
          args: [...prefix.args, '--state', scratch.file(`state-${sos}-${i}-${use.purpose}.json`)],
        };
      },
    });
  }

  it('reads the .NET heap in each attach and reaches the dotnet-dump verdict', async () => {
    const { report, samples, files } = await run('ok');
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(report.source).to.equal('heap');
    expect(
      samples.every((s) => s.clrTypes !== undefined && s.clrGenerations !== undefined),
    ).to.equal(true);
    const first = report.clrTypes?.series[0];
    expect(first).to.include({ id: 'System.Byte[]', suspect: true });
    expect(first?.countLast).to.be.greaterThan(first?.countFirst ?? Infinity);
    expect(report.clrTypes?.series.find((s) => s.id === 'System.Int64[]')?.suspect).to.equal(false);
    expect(report.clrGenerations?.series.map((s) => s.id)).to.include('gen0');
    // The categories came from the same attach; the GC's committed bytes (eeheap -gc of the
    // same attach) are the managed heap, out of private data.
    expect(report.categories?.series.find((s) => s.id === 'heap')?.firstKb).to.equal(
      0x0b997000 / 1024,
    );
    const gcCommitted = (n: number) =>
      samples[n - 1]?.clrGenerations?.reduce((kb, g) => kb + g.committedKb, 0);
    const managedHeap = report.categories?.series.find((s) => s.id === 'managed heap');
    expect(managedHeap?.firstKb).to.equal(gcCommitted(1));
    expect(managedHeap?.lastKb).to.equal(0x8a5000 / 1024);
    expect(samples[0]?.categories?.map((c) => c.id)).to.include('shareable');
    expect(samples[0]?.memoryTotals?.freeKb).to.equal(0x7ffed06bb000 / 1024);
    expect(report.managedNote).to.equal(undefined);
    // The report stacks the categories over time, the new ones among them, and says the totals.
    const html = await readFile(files.html, 'utf8');
    const stack = /<div id="category-stack">.*?<\/div><\/div>/s.exec(html)?.[0] ?? '';
    for (const layer of ['image', 'shareable', 'heap', 'managed heap', 'stack', 'private data']) {
      expect(stack).to.include(`data-layer="${layer}"`);
    }
    expect(await readFile(files.markdown, 'utf8')).to.match(
      /Address space at the last sample: committed [^,]+, reserved [^,]+, free /,
    );
    // Retention through one more cdb attach: the chain names the holding collection.
    const bytes = report.retention?.find((r) => r.type === 'System.Byte[]');
    expect(bytes?.sampled).to.equal(1);
    expect(bytes?.skipped).to.equal(undefined);
    const chains = bytes?.roots.map((r) => r.chain.join(' <- ')) ?? [];
    expect(
      chains.some((c) => c.includes('Dictionary<System.Guid, CdbHarness.Targets.SessionState>')),
    ).to.equal(true);
    expect(
      report.warnings.some((w) =>
        /^retention: the retention attach held the target [\d.]+ ms/.test(w),
      ),
    ).to.equal(true);
  });

  it('SOS unavailable: says why, and still reports the native series', async () => {
    const { report } = await run('nosos');
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(report.series.length).to.be.greaterThan(0);
    expect(report.clrTypes).to.equal(undefined);
    expect(report.managedNote).to.match(
      /^No \.NET series: SOS unavailable: .*Unable to find module/,
    );
    // No type was flagged without the .NET series: no retention attach.
    expect(report.retention ?? []).to.deep.equal([]);
  });

  it('SOS loaded without its managed host (the real engine under Wine): its own words, native series kept', async () => {
    const { report } = await run('hosting-failed');
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(report.series.length).to.be.greaterThan(0);
    expect(report.clrTypes).to.equal(undefined);
    expect(report.managedNote).to.equal(
      "No .NET series: SOS unavailable: Unrecognized command 'eeheap' because managed hosting failed or was disabled. See !sethostruntime command for details.; the native series are reported.",
    );
    // No GC bytes were read: the categories have no managed heap row.
    expect(report.categories?.series.map((s) => s.id)).to.not.include('managed heap');
  });

  it('a heap caught mid-GC (replayed from dotnet/diagnostics#3214): attached once more; refused twice, the sample is marked unused in SOS’s words in every report', async () => {
    const normal = [1, 2, 3, 4].map((n) =>
      scratch.scenario(clrScenario(n, true), `clr-midgc-ok-${n}.json`),
    );
    const refused = [1, 2, 3, 4].map((n) =>
      scratch.scenario(midGcScenario(n), `clr-midgc-refused-${n}.json`),
    );
    // Sample 2 (index 1): refused, then read on the second attach. Sample 3 (index 2): refused
    // on both attaches.
    const attaches = new Map<number, number>();
    const { report, samples, files } = await runHeapTrend({
      pid: 4242,
      name: 'app.exe',
      engine: 'cdb',
      clr: true,
      intervalMs: 300,
      samples: 4,
      retentionTypes: 0,
      outDir: scratch.file('out-midgc'),
      debuggerCommandFor: (use: DebuggerUse) => {
        const i = use.purpose === 'sample' ? use.index : 3;
        const nth = (attaches.get(i) ?? 0) + 1;
        attaches.set(i, nth);
        const midGc = (i === 1 && nth === 1) || i === 2;
        const prefix = emulatorPrefix((midGc ? refused : normal)[i] ?? '');
        return {
          file: prefix.file,
          args: [...prefix.args, '--state', scratch.file(`state-midgc-${i}-${nth}.json`)],
        };
      },
    });
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect([...attaches.entries()]).to.deep.equal([
      [0, 1],
      [1, 2],
      [2, 2],
      [3, 1],
    ]);
    // Retried and read: the second attach's types.
    expect(samples[1]?.unused).to.equal(undefined);
    expect(samples[1]?.clrTypes?.length).to.be.greaterThan(0);
    expect(samples[1]?.warnings.join('\n')).to.include(`SOS: ${MID_GC_WORDS}`);
    // Refused twice: kept, marked unused with SOS's words, left out of every series.
    const unused = `SOS: ${MID_GC_WORDS} (attached twice, mid-GC both times)`;
    expect(samples[2]?.unused).to.equal(unused);
    expect(samples[2]?.clrTypes).to.equal(undefined);
    expect(report.warnings).to.include(`sample 2 not used: ${unused}`);
    expect(report.clrTypes?.series[0]?.id).to.equal('System.Byte[]');
    for (const file of [files.markdown, files.html]) {
      expect(await readFile(file, 'utf8')).to.include(MID_GC_WORDS);
    }
    expect(formatSummary(report, files)).to.include(MID_GC_WORDS);
  });

  it('retention attach whose SOS cannot host its managed part: the type is skipped with that reason', async () => {
    const { report } = await run('ok', 'hosting-failed');
    assertValid('heapTrendReport', report);
    const bytes = report.retention?.find((r) => r.type === 'System.Byte[]');
    expect(bytes?.sampled).to.equal(0);
    expect(bytes?.skipped).to.equal(
      "skipped: dumpheap -mt stopped (Unrecognized command 'dumpheap' because managed hosting failed or was disabled. See !sethostruntime command for details.)",
    );
  });
});
