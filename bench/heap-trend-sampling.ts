// winedbg committed-memory sampling: time per sample (goal ≤ 100 ms) and proof that the target is
// never suspended. idle.exe prints `tick N` every 20 ms; its tick rate is measured alone, then
// while samples are taken back to back from one unattached winedbg (`info maps <pid>`). A sampler
// that suspended the target would show up as a lower tick rate and as samples during which the
// tick counter did not move.
//
//   node --import tsx bench/heap-trend-sampling.ts [--samples 40]
import { createBareSessionSampler } from '../src/workflows/heap-trend/bare-session-sampler.js';
import { killAllTargets, sleep, startTarget, wineEnv, wineRigReady } from '../test/helpers/wine.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SAMPLES = arg('--samples', 40);
const TICK_MS = 20;

// tick 17
const TICK_RE = /^tick (\d+)\r?$/gm;

function lastTick(log: string): number {
  let last = 0;
  for (const m of log.matchAll(TICK_RE)) last = Number(m[1]);
  return last;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;
}

async function main(): Promise<void> {
  if (!wineRigReady()) {
    console.log('wine rig not ready (scripts/setup.sh): skipped');
    return;
  }
  const target = await startTarget('idle', [String(TICK_MS)]);
  try {
    await target.waitForLine(/^tick 5\b/);
    // Baseline: ticks per second with nobody looking.
    const b0 = lastTick(target.log());
    const bt0 = performance.now();
    await sleep(2000);
    const baseline = (lastTick(target.log()) - b0) / ((performance.now() - bt0) / 1000);

    const sampler = await createBareSessionSampler({
      engine: 'winedbg',
      pid: target.pid,
      env: wineEnv(),
    });
    const durations: number[] = [];
    let frozen = 0;
    const s0 = lastTick(target.log());
    const st0 = performance.now();
    let regions = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const before = lastTick(target.log());
      const began = performance.now();
      const reading = await sampler.sample(i);
      durations.push(performance.now() - began);
      regions = reading.heaps.length;
      // Give the target one tick period to show it ran across this sample.
      await sleep(TICK_MS * 2);
      if (lastTick(target.log()) === before) frozen++;
    }
    const during = (lastTick(target.log()) - s0) / ((performance.now() - st0) / 1000);
    await sampler.close();
    const sorted = [...durations].sort((a, b) => a - b);
    const median = percentile(sorted, 0.5);
    console.log(
      `winedbg info maps sampling, ${SAMPLES} samples of idle.exe (${regions} regions): ` +
        `min ${(sorted[0] ?? 0).toFixed(1)} ms, median ${median.toFixed(1)} ms, p95 ${percentile(sorted, 0.95).toFixed(1)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(1)} ms ` +
        `(goal ≤ 100 ms) ${median <= 100 ? 'OK' : 'OVER'}`,
    );
    console.log(
      `target ticks/s: alone ${baseline.toFixed(1)}, while sampling ${during.toFixed(1)} ` +
        `(${((during / baseline) * 100).toFixed(0)} %); samples across which the tick counter stood still: ${frozen}/${SAMPLES} ` +
        `${frozen === 0 ? '(never suspended)' : '(SUSPENDED?)'}`,
    );
    if (median > 100 || frozen > 0) process.exitCode = 1;
  } finally {
    await killAllTargets();
  }
}

await main();
