// heap-trend's managed analysis at scale: 200 samples × 5,000 .NET types (the per-type series of
// `dumpheap -stat -live`, plus 7 generation series), through the same report assembly a run does
// (main series, per-type series cut to the 100 most suspicious, Markdown, HTML with sparklines).
// Goal (issue 18): ≤ 1 s and ≤ 256 MB. Synthetic numbers: three types grow, the rest are flat with
// noise, a few come and go. Prints the median of 5 runs and the process's peak RSS.
//
//   node --import tsx bench/heap-trend-types.ts [--samples 200] [--types 5000]
import { renderHeapTrendHtml } from '../src/report/heap-trend/html.js';
import { renderHeapTrendMarkdown } from '../src/report/heap-trend/markdown.js';
import { buildHeapTrendReport } from '../src/report/heap-trend/report.js';
import type { HeapTrendSample } from '../src/report/heap-trend/types.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SAMPLES = arg('--samples', 200);
const TYPES = arg('--types', 5000);

function makeSamples(): HeapTrendSample[] {
  const t0 = Date.parse('2026-11-27T00:00:00Z');
  let seed = 7;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const names = Array.from(
    { length: TYPES },
    (_, t) => `Contoso.Service.Model.Type${t}<System.String, System.Int32>`,
  );
  const samples: HeapTrendSample[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const clrTypes = [];
    for (let t = 0; t < TYPES; t++) {
      if (t % 97 === 5 && i % 3 === 0) continue;
      const grows = t < 3;
      const count = 10 + (t % 50) + (grows ? i * (t + 1) * 40 : Math.round(rand() * 3));
      clrTypes.push({ id: names[t] ?? '', committedKb: (count * 48) / 1024, count });
    }
    const heaps = ['gen0', 'gen1', 'gen2', 'loh', 'poh', 'nongc', 'soh'].map((id, g) => ({
      id,
      committedKb: 1024 * (g + 1) + (id === 'gen2' ? i * 200 : rand() * 64),
    }));
    samples.push({
      time: new Date(t0 + i * 1000).toISOString(),
      heaps,
      clrTypes,
      suspendedMs: 900,
      source: 'clr-generation',
      index: i,
      elapsedMs: i * 1000,
      totalCommittedKb: heaps.reduce((s, h) => s + h.committedKb, 0),
      durationMs: 1500,
      engine: 'dotnet-dump',
      warnings: [],
    });
  }
  return samples;
}

const samples = makeSamples();
// The input alone (a million rows) is not the analysis's memory: RSS is read before and after.
const rssBeforeMb = process.memoryUsage().rss / 1048576;
const runs: number[] = [];
const cpu: number[] = [];
let suspects = 0;
for (let run = 0; run < 5; run++) {
  const began = performance.now();
  const cpuBegan = process.cpuUsage();
  const report = buildHeapTrendReport(samples, {
    target: { pid: 1 },
    engine: 'dotnet-dump',
    source: 'clr-generation',
    intervalMs: 1000,
    startedAt: samples[0]?.time ?? '',
    endedAt: samples[samples.length - 1]?.time ?? '',
    status: 'completed',
  });
  renderHeapTrendMarkdown(report);
  renderHeapTrendHtml(report, samples);
  runs.push(performance.now() - began);
  const used = process.cpuUsage(cpuBegan);
  cpu.push((used.user + used.system) / 1000);
  suspects = report.clrTypes?.series.filter((s) => s.suspect).length ?? 0;
}
runs.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
const median = runs[Math.floor(runs.length / 2)] ?? 0;
const cpuMedian = cpu[Math.floor(cpu.length / 2)] ?? 0;
const rssMb = process.resourceUsage().maxRSS / 1024;
const analysisMb = rssMb - rssBeforeMb;
console.log(
  `heap-trend types: ${SAMPLES} samples x ${TYPES} types: analysis+report+md+html median ` +
    `${median.toFixed(0)} ms wall, ${cpuMedian.toFixed(0)} ms CPU (wall min ${(runs[0] ?? 0).toFixed(0)}, ` +
    `max ${(runs[runs.length - 1] ?? 0).toFixed(0)}); peak RSS ${rssMb.toFixed(0)} MB, of which ` +
    `${rssBeforeMb.toFixed(0)} MB is the generated input and ${analysisMb.toFixed(0)} MB the analysis; ` +
    `${suspects} suspect types (3 grow)`,
);
console.log(
  `goal (analysis <= 1000 ms CPU, <= 256 MB above the input): ` +
    `${cpuMedian <= 1000 && analysisMb <= 256 ? 'met' : 'NOT met'}`,
);
