// heap-trend analysis of 10,000 samples × 50 heaps. Goal (issue #7): ≤ 1 s.
// The samples are synthetic numbers (a few leaking heaps, the rest noisy and flat, some heaps
// appearing and disappearing); what is measured is the analysis (series, least squares, rule,
// ranking, projection), then report assembly and the HTML rendering for scale.
//
//   node --import tsx bench/heap-trend-analysis.ts [--samples 10000] [--heaps 50]
import { analyzeHeapTrend } from '../src/report/heap-trend/analysis.js';
import { renderHeapTrendHtml } from '../src/report/heap-trend/html.js';
import { buildHeapTrendReport } from '../src/report/heap-trend/report.js';
import type { HeapTrendSample } from '../src/report/heap-trend/types.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SAMPLES = arg('--samples', 10_000);
const HEAPS = arg('--heaps', 50);

function makeSamples(): HeapTrendSample[] {
  const t0 = Date.parse('2026-11-21T00:00:00Z');
  let seed = 42;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const samples: HeapTrendSample[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const heaps = [];
    for (let h = 0; h < HEAPS; h++) {
      // Heaps 45+ live only in the middle third of the run.
      if (h >= HEAPS - 5 && (i < SAMPLES / 3 || i > (2 * SAMPLES) / 3)) continue;
      const leaking = h < 3;
      const committedKb = Math.round(
        1024 * (1 + h) + (leaking ? i * (h + 1) * 16 : 0) + rand() * 8,
      );
      heaps.push({
        id: `0x${(0x100000 * (h + 1)).toString(16)}`,
        reservedKb: committedKb * 2,
        committedKb,
      });
    }
    samples.push({
      time: new Date(t0 + i * 5000).toISOString(),
      heaps,
      suspendedMs: 40,
      source: 'heap',
      index: i,
      elapsedMs: i * 5000,
      totalCommittedKb: heaps.reduce((s, x) => s + x.committedKb, 0),
      durationMs: 45,
      engine: 'cdb',
      warnings: [],
    });
  }
  return samples;
}

const samples = makeSamples();
// Warm-up (JIT), then the measured runs.
analyzeHeapTrend(samples.slice(0, 200));
const runs: number[] = [];
let suspects = 0;
for (let r = 0; r < 5; r++) {
  const began = performance.now();
  const analysis = analyzeHeapTrend(samples, { limitKb: 2 * 1024 * 1024 });
  runs.push(performance.now() - began);
  suspects = analysis.series.filter((s) => s.suspect).length;
}
runs.sort((a, b) => a - b);
const median = runs[2] ?? 0;
const reportBegan = performance.now();
const report = buildHeapTrendReport(samples, {
  target: { pid: 1 },
  engine: 'cdb',
  source: 'heap',
  intervalMs: 5000,
  startedAt: samples[0]?.time ?? '',
  endedAt: samples[samples.length - 1]?.time ?? '',
  status: 'completed',
});
const reportMs = performance.now() - reportBegan;
const htmlBegan = performance.now();
const html = renderHeapTrendHtml(report, samples);
const htmlMs = performance.now() - htmlBegan;
console.log(
  `analysis of ${SAMPLES} samples × ${HEAPS} heaps: median ${median.toFixed(0)} ms, best ${(runs[0] ?? 0).toFixed(0)} ms, worst ${(runs[4] ?? 0).toFixed(0)} ms (goal ≤ 1000 ms) ${median <= 1000 ? 'OK' : 'OVER'}; ${suspects} suspects (expected 3)`,
);
console.log(
  `report assembly ${reportMs.toFixed(0)} ms; HTML render ${htmlMs.toFixed(0)} ms, ${(html.length / 1024).toFixed(0)} KB`,
);
if (median > 1000) process.exitCode = 1;
