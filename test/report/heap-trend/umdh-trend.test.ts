// umdh across N snapshots. The inputs are the REAL umdh transcripts in test/fixtures/transcripts/umdh,
// written to files without their provenance header. Only one real snapshot-log body exists
// (docs-diff-backtrace-block: BackTrace00B53, 0x5320 bytes in 0x14 allocations), so the
// multi-snapshot log tests use that same real body several times as the snapshots, and the
// comparison-chain test uses the two real comparison reports as a chain. Exact-number rule tests
// feed the builder directly with that body's frames and chosen byte counts.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UmdhTrendBuilder } from '../../../src/report/heap-trend/umdh-trend.js';
import { assertValid } from '../../../src/report/schemas.js';
import { runUmdhDiff, sniffUmdhFile } from '../../../src/workflows/umdh/umdh-diff.js';
import { transcriptsDir } from '../../emulator/transcripts.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const dir = makeTempDir('umdh');

/** The body of a transcript (after `# ---`) as a file umdh could have written. */
function bodyFile(transcript: string, name: string): string {
  const text = readFileSync(join(transcriptsDir(), 'umdh', transcript), 'utf8');
  const body = text.slice(text.indexOf('# ---\n') + '# ---\n'.length);
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

const LOG = 'docs-diff-backtrace-block.txt';
const DIFF_PLUS = 'lowleveldesign-umdh-diff-with-total-increase-overhead.txt';
const DIFF_PLUS_MINUS = 'onecode-umdh-diff-plus-and-minus.txt';

describe('umdh N-snapshot trend', () => {
  it('tells a snapshot log from a comparison report', async () => {
    expect(await sniffUmdhFile(bodyFile(LOG, 'kind-log.txt'))).to.equal('log');
    expect(await sniffUmdhFile(bodyFile(DIFF_PLUS, 'kind-diff.txt'))).to.equal('comparison');
    expect(
      await sniffUmdhFile(bodyFile('strontic-umdh-10.0.19041-no-args-diff-header.txt', 'k3.txt')),
    ).to.equal('comparison');
  });

  it('follows each backtrace across snapshot logs (the same real body 3 times: no growth)', async () => {
    const files = [1, 2, 3].map((i) => bodyFile(LOG, `snap${i}.log`));
    const trend = await runUmdhDiff({ files });
    assertValid('umdhTrend', trend);
    expect(trend.totalStacks).to.equal(1);
    const [stack] = trend.stacks;
    expect(stack).to.deep.include({
      backtrace: 'BackTrace00B53',
      bytes: [0x5320, 0x5320, 0x5320],
      allocs: [0x14, 0x14, 0x14],
      growthBytes: 0,
      growthShare: 0,
      suspect: false,
      rank: 1,
      site: 'MyApp!DisplayMyGraphics+0x0000001E',
    });
    expect(stack?.frames[0]).to.equal('ntdll!RtlDebugAllocateHeap+0x000000FD');
    expect(stack?.frames).to.have.length(12);
  });

  it('chains comparison reports into points (two real reports → 3 points)', async () => {
    const files = [bodyFile(DIFF_PLUS, 'cmp12.txt'), bodyFile(DIFF_PLUS_MINUS, 'cmp23.txt')];
    const trend = await runUmdhDiff({ files });
    assertValid('umdhTrend', trend);
    expect(trend.snapshots.map((s) => s.kind)).to.deep.equal(['comparison', 'comparison']);
    const byId = new Map(trend.stacks.map((s) => [s.backtrace, s]));
    // BackTrace1 grew 0 → 0x27000 in the first report and is not in the second (unchanged).
    expect(byId.get('BackTrace1')?.bytes).to.deep.equal([0, 0x27000, 0x27000]);
    // BackTrace74050 appears in the second report only: 0 → 0x2a98c90.
    expect(byId.get('BackTrace74050')?.bytes).to.deep.equal([0, 0, 0x2a98c90]);
    // BackTrace73F28 was freed: 0x2018 → 0.
    expect(byId.get('BackTrace73F28')?.bytes).to.deep.equal([0x2018, 0x2018, 0]);
    expect(byId.get('BackTrace73F28')?.growthBytes).to.equal(-0x2018);
    // Biggest growth first.
    expect(trend.ranking[0]).to.equal('BackTrace74050');
    expect(byId.get('BackTrace74050')?.site).to.equal(
      'CppResourceLeaks!LeakHeapMemory+00000083 (...\\cppresourceleaks.cpp, 228)',
    );
  });

  it('refuses a mix of logs and comparison reports, and a single log', async () => {
    const log = bodyFile(LOG, 'mix-log.txt');
    const cmp = bodyFile(DIFF_PLUS, 'mix-cmp.txt');
    await runUmdhDiff({ files: [log, cmp] }).then(
      () => expect.fail('should refuse'),
      (error: Error) => expect(error.message).to.match(/not a mix/),
    );
    await runUmdhDiff({ files: [log] }).then(
      () => expect.fail('should refuse'),
      (error: Error) => expect(error.message).to.match(/at least 2 snapshot logs/),
    );
  });

  it('flags a stack that grows steadily and not one that jumped once (exact numbers)', () => {
    const frames = [
      'ntdll!RtlAllocateHeap+00000274',
      'MyApp!operator new+0x0000000E',
      'MyApp!main+0x0000002C',
    ];
    const builder = new UmdhTrendBuilder({ points: 5 });
    const steady = [0x1000, 0x21000, 0x41000, 0x61000, 0x81000];
    const jump = [0x1000, 0x1000, 0x1000, 0x1000, 0x801000];
    for (let i = 0; i < 5; i++) {
      builder.beginLog(`snap${i}`, i, new Date(Date.UTC(2026, 10, 21, 10, i * 30)).toISOString());
      builder.addLogEntry({
        backtrace: 'BackTraceA',
        bytes: steady[i] ?? 0,
        allocs: i + 1,
        frames,
      });
      builder.addLogEntry({ backtrace: 'BackTraceB', bytes: jump[i] ?? 0, frames });
    }
    const trend = builder.finish();
    const [a, b] = trend.stacks;
    expect(a).to.include({
      backtrace: 'BackTraceA',
      suspect: true,
      growthBytes: 0x80000,
      slopeBytesPerSnapshot: 0x20000,
      // 0x20000 bytes every 30 minutes.
      slopeBytesPerHour: 0x40000,
      r2: 1,
      growthShare: 1,
      allocsGrowth: 4,
      site: 'MyApp!main+0x0000002C',
    });
    expect(b).to.include({ backtrace: 'BackTraceB', suspect: false, growthShare: 0.25 });
    expect(trend.suspectStacks).to.equal(1);
    expect(trend.rule).to.match(/at least 3 snapshots/);
  });

  it('matches stacks by frames across processes when asked', () => {
    const frames = ['ntdll!RtlAllocateHeap+00000274', 'MyApp!Leak+0x10'];
    const builder = new UmdhTrendBuilder({ points: 2, key: 'frames' });
    builder.beginLog('run1', 0);
    builder.addLogEntry({ backtrace: 'BackTrace11', bytes: 100, frames });
    builder.beginLog('run2', 1);
    builder.addLogEntry({ backtrace: 'BackTrace99', bytes: 300, frames });
    const [stack] = builder.finish().stacks;
    expect(stack?.bytes).to.deep.equal([100, 300]);
    expect(stack?.backtraces).to.deep.equal(['BackTrace11', 'BackTrace99']);
  });
});
