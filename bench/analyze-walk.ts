// Benchmark: `analyze --engine builtin` with the crashing thread's stack walked, side by side
// with the walk turned off, in the same process on the same copies of the example dumps.
//   node --import tsx bench/analyze-walk.ts [--dumps 500] [--runs 3] [--image-path DIR]
//        [--peak-dumps 2000,10000]
// Images present: the dumps' system DLLs come from a Wine prefix, $WINEPREFIX or else the
// repository's .wine (made by `npm run setup`), so the walks unwind by .pdata and name frames by
// export tables; the bench says which prefix it used and how many images it found. Goals (issue
// 19): ≥ 1,000 dumps/s with walks, images and unwind tables cached across the batch (bounded), and
// peak memory ≤ 150 MB at any batch size. Both are measured twice: in this process (analyzeDumps(),
// best of --runs after a warm-up run, analyze threads kept warm between runs as a library user's
// process keeps them), and on a fresh CLI process (bin/cdb-harness.js when built, else the CLI
// through tsx) over each --peak-dumps count of dumps (hard links of the examples), under GNU time:
// what a user's `analyze` run gets, start-up and JIT warm-up included. Prints dumps/s per run (alternating walk / no walk, so load on a shared machine hits both
// alike), the best of each, CPU per dump, the frames per record, and each goal as MET or MISSED.
// Each run also walks on the calling thread only (`threads: 0`), so what analyze threads bring
// (src/workflows/analyze/thread-plan.ts decides when they are used) is printed side by side.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

// The V8 setting bin/cdb-harness.js gives every CLI run (its comment says why), set before the
// analyze modules load, as there: this process measures what the CLI's code does.
if (!process.execArgv.some((flag) => flag.startsWith('--interrupt-budget'))) {
  setFlagsFromString('--interrupt-budget=1000000');
}
const { readRecords } = await import('../src/report/analyze/records-file.js');
const { analyzeDumps } = await import('../src/workflows/analyze/analyze.js');

const COUNT = Number(option('--dumps', '500'));
const RUNS = Number(option('--runs', '3'));
const imagePath = option('--image-path', '');
const PEAK_COUNTS = option('--peak-dumps', '2000')
  .split(',')
  .filter((c) => c !== '')
  .map(Number);
const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');
const repoPrefix = join(REPO_ROOT, '.wine');
const winePrefix =
  process.env['WINEPREFIX'] ?? (existsSync(join(repoPrefix, 'drive_c')) ? repoPrefix : undefined);
const env = { ...process.env, ...(winePrefix === undefined ? {} : { WINEPREFIX: winePrefix }) };
const verdict = (met: boolean) => (met ? 'MET' : 'MISSED');
console.log(
  `images: Wine prefix ${winePrefix ?? 'none (set WINEPREFIX or run npm run setup)'}` +
    `${imagePath === '' ? '' : `, --image-path ${imagePath}`}`,
);

const input = mkdtempSync(join(tmpdir(), 'cdbh-bench-walk-'));
const sources = readdirSync(EXAMPLES).filter((f) => f.endsWith('.dmp'));
for (let i = 0; i < COUNT; i++) {
  const source = sources[i % sources.length]!;
  copyFileSync(join(EXAMPLES, source), join(input, `${String(i).padStart(5, '0')}-${source}`));
}

let images: Record<string, string> = {};

async function run(
  walkStacks: boolean,
  threads?: number,
): Promise<{ rate: number; frames: number; cpuMs: number }> {
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-walk-out-'));
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      walkStacks,
      ...(threads === undefined ? {} : { threads }),
      env,
      ...(winePrefix === undefined ? {} : { winePrefix }),
      ...(imagePath === '' ? {} : { imagePaths: [imagePath] }),
    });
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000 / COUNT;
    if (result.summary.ok !== COUNT) throw new Error(`only ${result.summary.ok} of ${COUNT} ok`);
    let frames = 0;
    for await (const record of readRecords(join(out, 'records.ndjson'))) {
      frames += record.frames.length;
      if (record.images !== undefined) images = { ...images, ...record.images };
    }
    return { rate: COUNT / (ms / 1000), frames: frames / COUNT, cpuMs };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

try {
  const walked: number[] = [];
  const plain: number[] = [];
  const cpuWalked: number[] = [];
  const cpuPlain: number[] = [];
  const single: number[] = [];
  const cpuSingle: number[] = [];
  let framesWalked = 0;
  let framesPlain = 0;
  await run(true); // warm-up: module loading, JIT, page cache (and analyze threads, when used)
  for (let i = 0; i < RUNS; i++) {
    const a = await run(true);
    const b = await run(false);
    // The same walks on the calling thread only (--threads 0): what the threads bring.
    const c = await run(true, 0);
    walked.push(a.rate);
    plain.push(b.rate);
    single.push(c.rate);
    cpuWalked.push(a.cpuMs);
    cpuPlain.push(b.cpuMs);
    cpuSingle.push(c.cpuMs);
    framesWalked = a.frames;
    framesPlain = b.frames;
    console.log(
      `run ${i + 1}: with walks ${a.rate.toFixed(0)} dumps/s (${a.cpuMs.toFixed(2)} ms CPU/dump), ` +
        `without ${b.rate.toFixed(0)} dumps/s (${b.cpuMs.toFixed(2)} ms CPU/dump); ` +
        `with walks on one thread (threads: 0) ${c.rate.toFixed(0)} dumps/s (${c.cpuMs.toFixed(2)} ms CPU/dump)`,
    );
  }
  const best = Math.max(...walked);
  const bestPlain = Math.max(...plain);
  const cpu = Math.min(...cpuWalked);
  const cpuBase = Math.min(...cpuPlain);
  const found = Object.entries(images).filter(([, where]) => where !== 'not found');
  console.log(
    `images found: ${found.length} of ${Object.keys(images).length} modules the walks asked for ` +
      `(${found.map(([name]) => name).join(', ') || 'none: set WINEPREFIX or --image-path'})`,
  );
  console.log(
    `analyze --engine builtin, ${COUNT} example dumps (best of ${RUNS}): with walks ${best.toFixed(0)} dumps/s ` +
      `(${framesWalked.toFixed(1)} frames/record), without ${bestPlain.toFixed(0)} dumps/s ` +
      `(${framesPlain.toFixed(1)} frames/record)`,
  );
  const bestSingle = Math.max(...single);
  console.log(
    `analyze threads: with walks ${best.toFixed(0)} dumps/s against ${bestSingle.toFixed(0)} on one thread ` +
      `(${(best / bestSingle).toFixed(2)}x), CPU per dump ${cpu.toFixed(2)} ms against ${Math.min(...cpuSingle).toFixed(2)} ` +
      `(every thread's CPU; the default chooses threads for ${COUNT} dumps: see src/workflows/analyze/thread-plan.ts)`,
  );
  // CPU time per dump does not depend on what else the machine runs: the walk's own cost.
  console.log(
    `CPU per dump: with walks ${cpu.toFixed(2)} ms, without ${cpuBase.toFixed(2)} ms (walk +${(cpu - cpuBase).toFixed(2)} ms); ` +
      `CPU-bound ceiling on one core ${(1000 / cpu).toFixed(0)} vs ${(1000 / cpuBase).toFixed(0)} dumps/s`,
  );
  console.log(
    `goal >= 1000 dumps/s with walks, images present: ${best.toFixed(0)} dumps/s: ` +
      `${verdict(best >= 1000 && found.length > 0)}${found.length > 0 ? '' : ' (no images found)'}`,
  );
  for (const count of PEAK_COUNTS) {
    const cli = cliRun(count);
    const rate = count / cli.seconds;
    console.log(
      `CLI over ${count} dumps (one fresh process, start-up included): ${rate.toFixed(0)} dumps/s, ` +
        `${((cli.cpuSeconds * 1000) / count).toFixed(2)} ms CPU/dump (every thread's)`,
    );
    console.log(
      `goal >= 1000 dumps/s with walks (fresh CLI process, ${count} dumps): ${rate.toFixed(0)} dumps/s: ${verdict(rate >= 1000)}`,
    );
    console.log(
      `goal peak <= 150 MB (fresh CLI process, ${count} dumps with walks): ${cli.peakMb.toFixed(0)} MB: ${verdict(cli.peakMb <= 150)}`,
    );
  }
} finally {
  rmSync(input, { recursive: true, force: true });
}

/**
 * One CLI process analysing `count` hard links of the example dumps: its wall time, CPU (user +
 * sys of every thread) and peak RSS, from GNU time.
 */
function cliRun(count: number): { seconds: number; cpuSeconds: number; peakMb: number } {
  const folder = mkdtempSync(join(tmpdir(), 'cdbh-bench-walk-peak-'));
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-walk-peak-out-'));
  try {
    for (let i = 0; i < count; i++) {
      const source = sources[i % sources.length]!;
      linkSync(join(EXAMPLES, source), join(folder, `${String(i).padStart(6, '0')}-${source}`));
    }
    const built = existsSync(join(REPO_ROOT, 'dist', 'bundle', 'cli', 'main.js'));
    const cli = built
      ? [join(REPO_ROOT, 'bin', 'cdb-harness.js')]
      : ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'run-cli.ts')];
    const extra = [
      ...(imagePath === '' ? [] : ['--image-path', imagePath]),
      ...(winePrefix === undefined ? [] : ['--wine-prefix', winePrefix]),
    ];
    const result = spawnSync(
      '/usr/bin/time',
      [
        '-f',
        '%e %U %S %M',
        'node',
        ...cli,
        'analyze',
        folder,
        '--engine',
        'builtin',
        '--out',
        out,
        '--no-progress',
        ...extra,
      ],
      { encoding: 'utf8', env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 16 << 20 },
    );
    const last = result.stderr.trim().split('\n').pop() ?? '';
    // Sample: 9.87 17.41 0.82 144588 (elapsed s, user s, sys s, max RSS KB)
    const figures = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/.exec(last);
    if (result.status !== 0 || figures === null) {
      throw new Error(
        `analyze of ${count} dumps failed (${result.status}): ${result.stderr.slice(-400)}`,
      );
    }
    return {
      seconds: Number(figures[1]),
      cpuSeconds: Number(figures[2]) + Number(figures[3]),
      peakMb: Number(figures[4]) / 1024,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}
