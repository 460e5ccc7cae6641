// heap-trend --clr through cdb + SOS, where SOS's managed host cannot be had (the real Debugger
// Engine under Wine: see the issue note): the cdb emulator stands for cdb, each sample a new
// attach whose `!eeheap -gc` and `!dumpheap -stat -live` replies are the REAL SOS text of one
// running program, recorded with dotnet-dump a second apart (SOS prints the same text under cdb;
// test/fixtures/transcripts/dotnet-dump/series-*; scripts/record-dotnet-dump.sh series). The
// verdict must match the dotnet-dump path: the growing type first and flagged, the big array
// allocated once not flagged. And when SOS cannot load, the reason is given and the native series
// are still reported.
import { expect } from 'chai';
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

function clrScenario(n: number, sos: boolean): Scenario {
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

  function run(sos: boolean) {
    const scenarios = [1, 2, 3, 4].map((n) =>
      scratch.scenario(clrScenario(n, sos), `clr-${sos ? 'ok' : 'nosos'}-${n}.json`),
    );
    return runHeapTrend({
      pid: 4242,
      name: 'app.exe',
      engine: 'cdb',
      clr: true,
      intervalMs: 300,
      samples: 4,
      outDir: scratch.file(`out-${sos ? 'ok' : 'nosos'}`),
      debuggerCommandFor: (use: DebuggerUse) => {
        const i = use.purpose === 'sample' ? Math.min(use.index, 3) : 3;
        const prefix = emulatorPrefix(scenarios[i] ?? '');
        return {
          file: prefix.file,
          args: [...prefix.args, '--state', scratch.file(`state-${sos}-${i}-${use.purpose}.json`)],
        };
      },
    });
  }

  it('reads the .NET heap in each attach and reaches the dotnet-dump verdict', async () => {
    const { report, samples } = await run(true);
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
    // The categories came from the same attach.
    expect(report.categories?.series.find((s) => s.id === 'heap')?.firstKb).to.equal(
      0x0b997000 / 1024,
    );
    expect(report.managedNote).to.equal(undefined);
  });

  it('SOS unavailable: says why, and still reports the native series', async () => {
    const { report } = await run(false);
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(report.series.length).to.be.greaterThan(0);
    expect(report.clrTypes).to.equal(undefined);
    expect(report.managedNote).to.match(
      /^No \.NET series: SOS unavailable: .*Unable to find module/,
    );
  });
});
