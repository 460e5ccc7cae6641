// Benchmark: `analyze` throughput and memory.
//   node --import tsx bench/analyze-throughput.ts [--builtin 200] [--winedbg 100] [--rss 100,1000] [--skip-winedbg]
// 1. builtin engine on N copies of the example dumps (real winedbg dumps, ~130 KB): dumps/s for
//    the whole run (hashing, reading, records, summary, report). Goal ≥ 500 dumps/s.
// 2. winedbg engine on N copies, --jobs 1 then --jobs 2: throughput ratio (goal ≥ 1.7× on two
//    cores) and the harness's own time per dump, everything but waiting on the debugger (goal
//    ≤ 5 % of the total).
// 3. peak RSS of a fresh process analysing 100 and 1,000 dumps with the builtin engine: should
//    be flat, because records are streamed to disk and summaries are folded, not collected.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeDumps } from '../src/workflows/analyze/analyze.js';
import { readRecords } from '../src/report/analyze/records-file.js';
import { REPO_ROOT, wineEnv, wineRigReady } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

const args = process.argv.slice(2);
const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

/** A temp folder with `count` copies of the example dumps (round robin). */
export function copies(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdbh-bench-analyze-'));
  const sources = readdirSync(EXAMPLES).filter((f) => f.endsWith('.dmp'));
  for (let i = 0; i < count; i++) {
    const source = sources[i % sources.length]!;
    copyFileSync(join(EXAMPLES, source), join(dir, `${String(i).padStart(5, '0')}-${source}`));
  }
  return dir;
}

async function builtinThroughput(count: number): Promise<void> {
  const input = copies(count);
  try {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-out-'));
      const t = performance.now();
      const result = await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
      const ms = performance.now() - t;
      if (result.summary.ok !== count) throw new Error(`only ${result.summary.ok} ok`);
      runs.push(count / (ms / 1000));
      rmSync(out, { recursive: true, force: true });
    }
    const best = Math.max(...runs);
    console.log(
      `builtin: ${count} dumps, ${runs.map((r) => r.toFixed(0)).join(' / ')} dumps/s (best ${best.toFixed(0)}; goal >= 500) ${best >= 500 ? 'OK' : 'MISSED'}`,
    );
  } finally {
    rmSync(input, { recursive: true, force: true });
  }
}

async function winedbgThroughput(count: number): Promise<void> {
  if (!wineRigReady()) {
    console.log('winedbg: skipped (Wine rig not ready)');
    return;
  }
  const input = copies(count);
  try {
    const rates: Record<number, number> = {};
    for (const jobs of [1, 2]) {
      const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-out-'));
      const t = performance.now();
      const result = await analyzeDumps({
        inputs: [input],
        outDir: out,
        engine: 'winedbg',
        jobs,
        env: wineEnv(),
        timeoutMs: 60_000,
      });
      const wallMs = performance.now() - t;
      const rate = count / (wallMs / 1000);
      rates[jobs] = rate;
      let total = 0;
      let debuggerMs = 0;
      for await (const r of readRecords(join(out, 'records.ndjson'))) {
        total += r.timings.totalMs;
        debuggerMs += r.timings.debuggerMs ?? 0;
      }
      // Per dump: hashing, the builtin pre-read, parsing and writing vs. waiting on winedbg.
      const perDump = (total - debuggerMs) / total;
      // Whole batch: every worker-second not spent waiting on winedbg (listing, summary, report,
      // idle workers at the end) over all worker-seconds.
      const batch = (wallMs * jobs - debuggerMs) / (wallMs * jobs);
      console.log(
        `winedbg --jobs ${jobs}: ${count} dumps in ${(wallMs / 1000).toFixed(1)} s = ${rate.toFixed(2)} dumps/s; ok ${result.summary.ok}; ` +
          `per dump ${(total / count).toFixed(0)} ms, of which waiting on winedbg ${(debuggerMs / count).toFixed(0)} ms; ` +
          `harness share ${(perDump * 100).toFixed(1)} % per dump (goal <= 5 %), ${(batch * 100).toFixed(1)} % of all worker time`,
      );
      rmSync(out, { recursive: true, force: true });
    }
    const ratio = rates[2]! / rates[1]!;
    console.log(
      `winedbg: --jobs 2 / --jobs 1 = ${ratio.toFixed(2)}x (goal >= 1.7x) ${ratio >= 1.7 ? 'OK' : 'MISSED'}`,
    );
  } finally {
    rmSync(input, { recursive: true, force: true });
  }
}

/** Peak RSS of a fresh node process analysing `count` dumps (bench/analyze-rss-child.ts). */
function peakRss(count: number): number {
  const input = copies(count);
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-out-'));
  try {
    const text = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'bench', 'analyze-rss-child.ts'), input, out],
      { encoding: 'utf8' },
    );
    return Number(/maxRssKb=(\d+)/.exec(text)?.[1]);
  } finally {
    rmSync(input, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

await builtinThroughput(Number(option('--builtin', '200')));
const rssCounts = option('--rss', '100,1000').split(',').map(Number);
const rss = rssCounts.map((n) => ({ n, kb: peakRss(n) }));
console.log(
  `peak RSS (builtin): ${rss.map((r) => `${r.n} dumps ${(r.kb / 1024).toFixed(0)} MB`).join(', ')}; ` +
    `growth ${((rss.at(-1)!.kb / rss[0]!.kb - 1) * 100).toFixed(0)} %`,
);
if (!args.includes('--skip-winedbg')) await winedbgThroughput(Number(option('--winedbg', '100')));
