// heap-trend's per-heap path (cdb: one noninvasive `-pv` attach per sample, `!heap -s -h 0`, exit)
// through the cdb emulator. Each sample is a NEW cdb process and the emulator keeps nothing between
// processes, so the workflow's test seam `debuggerCommandFor` points sample i at scenario i, whose
// reply is the body of a REAL `!heap -s` transcript. The five bodies come from five different
// processes, ordered by their total commit (48 KB → 18.2 MB): the heaps change from sample to
// sample (so every series appears and disappears), and the TOTAL grows. That proves the sampling,
// parsing, sequencing, thresholds and the gap handling, not a leak story: no real transcript
// shows one heap growing.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { DebuggerNotFoundError } from '../../src/errors.js';
import { parseHeapSummary } from '../../src/parsers/heap-summary.js';
import { assertValid } from '../../src/report/schemas.js';
import { runHeapTrend } from '../../src/workflows/heap-trend/run-heap-trend.js';
import type { DebuggerUse } from '../../src/workflows/heap-trend/sampler.js';
import { emulatorPrefix, Scratch } from '../emulator/emulator-pty.js';
import type { Scenario } from '../emulator/scenario.js';
import { resolveText, type TextSource } from '../emulator/transcripts.js';

const BODIES: TextSource[] = [
  { transcript: 'heap-s/lowleveldesign-win10-x64-no-lfh-debug-flags.txt' },
  { transcript: 'heap-s/onecode-win7-x86-affinity-manager-2.txt' },
  // Its first body line is the bare command (no prompt): skip it.
  { transcript: 'heap-s/myarichuk-win10-x64-nt-heap-only-ust.txt', from: 2 },
  { transcript: 'heap-s/onecode-xp-era-x86-fast-heap-L.txt' },
  { transcript: 'heap-s/hueifeng-win10-x64-nt-external-fragmentation.txt' },
];

function heapScenario(body: TextSource): Scenario {
  return {
    description: `heap-trend sample: ${body.transcript}`,
    replies: [{ pattern: '^!heap -s(?: -h 0)?$', reply: [body] }],
    dump: { result: 'success' },
  };
}

function expectedHeaps(body: TextSource) {
  return parseHeapSummary(resolveText(body).join('\n')).heaps.map((h) => ({
    id: h.address,
    reservedKb: h.reservedKb,
    committedKb: h.committedKb,
  }));
}

describe('heap-trend with cdb (emulator, real !heap -s transcripts)', function () {
  this.timeout(120_000);
  let scratch: Scratch;
  beforeEach(() => {
    scratch = new Scratch();
  });
  afterEach(() => scratch.cleanup());

  /** Sample i → scenario i (the last one repeats); dumps → a scenario where .dump succeeds. */
  function commandFor(scenarios: string[], states: string[]) {
    return (use: DebuggerUse) => {
      const i = use.purpose === 'sample' ? Math.min(use.index, scenarios.length - 1) : -1;
      const state = scratch.file(`state-${use.purpose}-${i < 0 ? 'dump' : i}.json`);
      states.push(state);
      const scenario = i < 0 ? (scenarios[scenarios.length - 1] ?? '') : (scenarios[i] ?? '');
      const prefix = emulatorPrefix(scenario);
      return { file: prefix.file, args: [...prefix.args, '--state', state] };
    };
  }

  it('takes one short noninvasive attach per sample and records each heap as cdb printed it', async () => {
    const scenarios = BODIES.map((body, i) => scratch.scenario(heapScenario(body), `s${i}.json`));
    const states: string[] = [];
    const { report, samples, files } = await runHeapTrend({
      pid: 4242,
      name: 'app.exe',
      engine: 'cdb',
      intervalMs: 100,
      samples: BODIES.length,
      outDir: scratch.file('out'),
      // 10 MB is first crossed by the 4th body (16,408 KB in all).
      dumpAtKb: [10 * 1024],
      debuggerCommandFor: commandFor(scenarios, states),
    });

    expect(report.status).to.equal('completed');
    expect(report.source).to.equal('heap');
    expect(report.view).to.match(/^Per-heap view/);
    expect(samples.map((s) => s.heaps)).to.deep.equal(BODIES.map(expectedHeaps));
    expect(samples.map((s) => s.totalCommittedKb)).to.deep.equal([48, 416, 6876, 16408, 18620]);
    for (const sample of samples) {
      expect(sample.source).to.equal('heap');
      expect(sample.engine).to.equal('cdb');
      // The target is suspended for each attach: the sample says for how long.
      expect(sample.suspendedMs).to.be.greaterThan(0);
    }
    expect(report.suspension.totalMs).to.be.greaterThan(0);
    expect(report.total).to.include({ firstKb: 48, lastKb: 18620, growthKb: 18572 });
    expect(report.total.slopeKbPerMin).to.be.greaterThan(0);

    // Every cdb was a `-pv` attach that ended without touching the target.
    const sampleStates = states
      .filter((s) => s.includes('state-sample-'))
      .map((s) => JSON.parse(readFileSync(s, 'utf8')) as { argv: string[]; targetAlive: boolean });
    expect(sampleStates).to.have.length(BODIES.length);
    for (const state of sampleStates) {
      expect(state.argv).to.include('-pv');
      expect(state.targetAlive).to.equal(true);
    }

    // Heaps that exist in one sample only: a series each, never a suspect.
    const win7Heap = report.series.find((s) => s.id === '0x460000');
    expect(win7Heap).to.include({
      samples: 1,
      firstSampleIndex: 1,
      appeared: true,
      disappeared: true,
    });
    expect(report.series.filter((s) => s.suspect)).to.deep.equal([]);

    // The threshold dump went through cdb (`.dump /o /ma`); the emulator's file is a synthetic
    // minidump (test/emulator/dump-file.ts) recording the `-p` pid, so it reads back verified.
    expect(report.dumps).to.have.length(1);
    expect(report.dumps[0]).to.include({
      thresholdKb: 10 * 1024,
      sampleIndex: 3,
      written: true,
      verified: true,
      pid: 4242,
      kind: 'full',
    });
    expect(report.dumps[0]?.error).to.equal(undefined);
    expect(existsSync(report.dumps[0]?.path ?? '')).to.equal(true);
    const dumpState = JSON.parse(
      readFileSync(states.find((s) => s.includes('state-dump')) ?? '', 'utf8'),
    ) as { commands: string[]; argv: string[] };
    expect(dumpState.argv).to.include('-pv');
    expect(dumpState.commands.some((c) => /^\.dump \/o \/ma "/.test(c))).to.equal(true);

    assertValid('heapTrendReport', JSON.parse(readFileSync(files.report, 'utf8')));
    // The pages name the dump from their own folder (it is in OUT/dumps, beside them), never by a
    // path that carries the analyst's folders; report.json keeps the whole path.
    const dumpPath = report.dumps[0]?.path ?? '';
    const shown = relative(dirname(files.html), dumpPath);
    expect(shown.startsWith(join('dumps', ''))).to.equal(true);
    for (const page of [files.html, files.markdown]) {
      const text = readFileSync(page, 'utf8');
      expect(text, page).to.not.include(dirname(files.html));
      expect(text, page).to.include(shown);
    }
    expect(readFileSync(files.report, 'utf8')).to.include(JSON.stringify(dumpPath));
    const lines = readFileSync(files.samples, 'utf8').trim().split('\n');
    expect(lines).to.have.length(BODIES.length);
  });

  it('ends with target-exited when cdb cannot attach any more and the process is gone', async () => {
    const scenarios = [
      scratch.scenario(heapScenario(BODIES[0] ?? { transcript: '' }), 's0.json'),
      scratch.scenario(heapScenario(BODIES[1] ?? { transcript: '' }), 's1.json'),
      scratch.scenario({ attachError: 'exiting' }, 's2.json'),
    ];
    const { report } = await runHeapTrend({
      pid: 4242,
      engine: 'cdb',
      intervalMs: 100,
      samples: 6,
      outDir: scratch.file('out'),
      debuggerCommandFor: commandFor(scenarios, []),
      isTargetAlive: () => Promise.resolve(false),
    });
    expect(report.status).to.equal('target-exited');
    expect(report.sampleCount).to.equal(2);
    expect(report.message).to.match(/pid 4242\) is gone/);
  });

  it('stops at the first sample, exit 3, when !heap lists no heap at all (never 0 KB and no suspect)', async () => {
    // A real reply with an empty NT heap table (WinDbg on Windows 10; the transcript's header
    // says where it came from): every process has a process heap, so this is !heap failing.
    const empty = { transcript: 'heap-s/win10-x64-nt-stats-no-heaps-to-display.txt' };
    expect(expectedHeaps(empty)).to.deep.equal([]);
    const scenarios = [scratch.scenario(heapScenario(empty), 's0.json')];
    const outDir = scratch.file('out');
    let caught: unknown;
    try {
      await runHeapTrend({
        pid: 4242,
        engine: 'cdb',
        intervalMs: 100,
        samples: 3,
        outDir,
        debuggerCommandFor: commandFor(scenarios, []),
      });
    } catch (error) {
      caught = error;
    }
    expect(caught, 'the run must not complete').to.be.instanceOf(DebuggerNotFoundError);
    expect(exitCodeFor(caught)).to.equal(3);
    const message = (caught as Error).message;
    expect(message).to.include('listed no heap');
    expect(message).to.include('No heaps to display.');
    expect(message).to.match(/ntdll's symbols/);
    expect(existsSync(join(outDir, 'report.json'))).to.equal(false);
  });
});
