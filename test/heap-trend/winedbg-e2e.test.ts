// heap-trend end to end against real Wine processes, with a real (unattached) winedbg sampling
// `info maps <pid>`. leak.exe prints its own HeapWalk totals (HEAPSTAT lines): the independent
// truth the report is checked against.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { assertValid } from '../../src/report/schemas.js';
import { runHeapTrend } from '../../src/workflows/heap-trend/run-heap-trend.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../helpers/wine.js';
import { checkReportInChromium } from './chromium-check.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// HEAPSTAT tick=3 heap=00000000010a0000 busy=786432 blocks=3 committed=851968 uncommitted=3342336 leaked=786432
const HEAPSTAT_RE =
  /^HEAPSTAT tick=(\d+) heap=([0-9a-f]+) busy=(\d+) blocks=\d+ committed=(\d+) uncommitted=\d+ leaked=\d+$/i;

interface HeapStat {
  tick: number;
  heap: string;
  busy: number;
  committed: number;
}

function lastHeapstat(log: string): HeapStat | undefined {
  // Only complete lines (a line still being written has no newline yet).
  const lines = log
    .split(/\r?\n/)
    .slice(0, -1)
    .filter((l) => HEAPSTAT_RE.test(l));
  const m = HEAPSTAT_RE.exec(lines[lines.length - 1] ?? '');
  if (!m) return undefined;
  return { tick: Number(m[1]), heap: m[2] ?? '', busy: Number(m[3]), committed: Number(m[4]) };
}

function outDir(name: string): string {
  return makeTempDir(`heap-trend-${name}`);
}

describe('heap-trend with winedbg (real Wine processes)', function () {
  this.timeout(90_000);

  before(function () {
    if (!wineRigReady()) this.skip();
  });
  afterEach(() => killAllTargets());

  it('ranks the leaking region of leak.exe first, flags it, and agrees with its own HeapWalk', async () => {
    // 256 KB every 200 ms.
    const target = await startTarget('leak', ['256', '200', '0']);
    await target.waitForLine(/^HEAPSTAT tick=2 /);
    // The target's own numbers, read the moment each sample has been taken.
    const truth: HeapStat[] = [];
    const out = outDir('leak');
    const { report, samples, files } = await runHeapTrend({
      pid: target.pid,
      name: 'leak.exe',
      engine: 'winedbg',
      intervalMs: 400,
      samples: 6,
      outDir: out,
      limitKb: 2 * 1024 * 1024,
      env: wineEnv(),
      onProgress: (event) => {
        const stat = lastHeapstat(target.log());
        if (event.kind === 'sample' && stat !== undefined) truth.push(stat);
      },
    });
    const before = truth[0];
    const after = truth[truth.length - 1];
    expect(before, 'HEAPSTAT before').to.not.equal(undefined);
    expect(after, 'HEAPSTAT after').to.not.equal(undefined);

    expect(report.status).to.equal('completed');
    expect(report.source).to.equal('committed-memory');
    expect(report.view).to.match(/Committed-memory view, NOT a per-heap one/);
    expect(samples).to.have.length(6);
    expect(samples.every((s) => s.suspendedMs === 0)).to.equal(true);

    const [top] = report.series;
    expect(top?.id, 'the region that holds the HeapCreate heap').to.equal(
      `region@0x${(before?.heap ?? '').replace(/^0+/, '')}`,
    );
    expect(top?.suspect).to.equal(true);
    expect(top?.slopeKbPerMin).to.be.greaterThan(0);
    expect(report.ranking[0]).to.equal(top?.id);
    // No other region grows like a leak.
    expect(report.series.filter((s) => s.suspect).map((s) => s.id)).to.deep.equal([top?.id]);

    // The truth is the heap's own HeapWalk: the bytes leaked (busy) between the first and the last
    // sample, give or take the tick in flight at each end. The region also holds Wine's heap
    // bookkeeping and commit-ahead (segments commit in steps), so it may grow somewhat more.
    const truthKb = ((after?.busy ?? 0) - (before?.busy ?? 0)) / 1024;
    expect(truthKb).to.be.greaterThan(0);
    expect(top?.growthKb).to.be.at.least(truthKb - 2 * 256);
    expect(top?.growthKb).to.be.at.most(truthKb * 1.5 + 512);
    const minutes = ((samples[5]?.elapsedMs ?? 0) - (samples[0]?.elapsedMs ?? 0)) / 60_000;
    const truthRate = truthKb / minutes;
    expect(top?.slopeKbPerMin).to.be.within(truthRate * 0.6, truthRate * 1.6);

    // Memory by category from the same listings: private data grows with the leak, image does not.
    const categories = report.categories?.series ?? [];
    const privateData = categories.find((c) => c.id === 'private data');
    const image = categories.find((c) => c.id === 'image');
    expect(privateData?.growthKb).to.be.at.least(truthKb - 2 * 256);
    expect(privateData?.suspect).to.equal(true);
    expect(image?.growthKb).to.equal(0);
    expect(image?.suspect).to.equal(false);

    // Files: one ndjson line per sample, schema-valid; the report is schema-valid.
    const lines = readFileSync(files.samples, 'utf8').trim().split('\n');
    expect(lines).to.have.length(6);
    for (const line of lines) assertValid('heapTrendSample', JSON.parse(line));
    assertValid('heapTrendReport', JSON.parse(readFileSync(files.report, 'utf8')));
    expect(readFileSync(files.markdown, 'utf8')).to.contain('**yes**');
    expect(await target.isRunning(1500, /^HEAPSTAT/)).to.equal(true);

    await checkReportInChromium(files.html, report.series.length, 'heap-trend-winedbg-leak.png');
  });

  it('writes a verified dump through winedbg when the total commit crosses a --dump-at step', async () => {
    const target = await startTarget('leak', ['64', '200', '0']);
    const { report } = await runHeapTrend({
      pid: target.pid,
      name: 'leak.exe',
      engine: 'winedbg',
      intervalMs: 300,
      samples: 3,
      outDir: outDir('dump'),
      // 1 KB is crossed by the first sample; 1 TB never is.
      dumpAtKb: [1, 1024 * 1024 * 1024],
      env: wineEnv(),
    });
    expect(report.dumps).to.have.length(1);
    expect(report.dumps[0]).to.include({
      thresholdKb: 1,
      sampleIndex: 0,
      written: true,
      verified: true,
      pid: target.pid,
      kind: 'mini',
    });
    expect(report.dumps[0]?.suspendedMs).to.be.greaterThan(0);
    expect(await target.isRunning(1500, /^HEAPSTAT/)).to.equal(true);
  });

  it('flags nothing on idle.exe', async () => {
    const target = await startTarget('idle', ['100']);
    const { report } = await runHeapTrend({
      pid: target.pid,
      engine: 'winedbg',
      intervalMs: 300,
      samples: 5,
      outDir: outDir('idle'),
      env: wineEnv(),
    });
    expect(report.status).to.equal('completed');
    expect(report.sampleCount).to.equal(5);
    expect(report.series.length).to.be.greaterThan(0);
    expect(report.series.filter((s) => s.suspect)).to.deep.equal([]);
  });

  it('keeps the samples taken before an interruption and still writes the report', async () => {
    const target = await startTarget('leak', ['64', '200', '0']);
    const controller = new AbortController();
    const { report, samples, files } = await runHeapTrend({
      pid: target.pid,
      engine: 'winedbg',
      intervalMs: 300,
      samples: 50,
      outDir: outDir('abort'),
      env: wineEnv(),
      signal: controller.signal,
      onProgress: (event) => {
        if (event.kind === 'sample' && event.sample.index === 2) controller.abort();
      },
    });
    expect(report.status).to.equal('interrupted');
    expect(report.message).to.match(/interrupted after 3 sample/);
    expect(samples).to.have.length(3);
    expect(readFileSync(files.samples, 'utf8').trim().split('\n')).to.have.length(3);
    assertValid('heapTrendReport', JSON.parse(readFileSync(files.report, 'utf8')));
    expect(readFileSync(files.html, 'utf8')).to.contain('interrupted');
    // The target was never attached, so it runs on.
    expect(await target.isRunning(1500, /^HEAPSTAT/)).to.equal(true);
  });

  it('reports up to the moment the target exits, and says so', async () => {
    // 30 ticks of 100 ms: leak.exe exits after about 3 s, time for a first sample even when Wine
    // is slow to start the debugger on a busy machine.
    const target = await startTarget('leak', ['64', '100', '30']);
    const { report, files } = await runHeapTrend({
      pid: target.pid,
      engine: 'winedbg',
      intervalMs: 300,
      samples: 40,
      outDir: outDir('exit'),
      env: wineEnv(),
    });
    expect(report.status).to.equal('target-exited');
    expect(report.message).to.match(/is gone|has probably exited/);
    expect(report.message).to.match(/report covers the \d+ sample/);
    expect(report.sampleCount).to.be.within(1, 20);
    expect(readFileSync(files.markdown, 'utf8')).to.contain('Status: target-exited');
  });
});
