// Benchmark: `analyze --engine builtin` with the crashing thread's stack walked, side by side
// with the walk turned off, in the same process on the same copies of the example dumps.
//   WINEPREFIX=.wine node --import tsx bench/analyze-walk.ts [--dumps 500] [--runs 3] [--image-path DIR]
// With a Wine prefix the dumps' system DLL images are found (images present), so the walks unwind
// by .pdata and name frames by export tables. Goals (issue 19): ≥ 1,000 dumps/s with walks, images
// and unwind tables cached across the batch (bounded), peak memory ≤ 150 MB. Prints dumps/s per run
// (alternating walk / no walk, so load on a shared machine hits both alike), the best of each, the
// ratio, CPU per dump, the frames per record, the images found and the process's peak RSS.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecords } from '../src/report/analyze/records-file.js';
import { analyzeDumps } from '../src/workflows/analyze/analyze.js';
import { REPO_ROOT } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
};
const COUNT = Number(option('--dumps', '500'));
const RUNS = Number(option('--runs', '3'));
const imagePath = option('--image-path', '');
const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

const input = mkdtempSync(join(tmpdir(), 'cdbh-bench-walk-'));
const sources = readdirSync(EXAMPLES).filter((f) => f.endsWith('.dmp'));
for (let i = 0; i < COUNT; i++) {
  const source = sources[i % sources.length]!;
  copyFileSync(join(EXAMPLES, source), join(input, `${String(i).padStart(5, '0')}-${source}`));
}

let images: Record<string, string> = {};

async function run(walkStacks: boolean): Promise<{ rate: number; frames: number; cpuMs: number }> {
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-walk-out-'));
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      walkStacks,
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
  let framesWalked = 0;
  let framesPlain = 0;
  await run(true); // warm-up: module loading, JIT, page cache
  for (let i = 0; i < RUNS; i++) {
    const a = await run(true);
    const b = await run(false);
    walked.push(a.rate);
    plain.push(b.rate);
    cpuWalked.push(a.cpuMs);
    cpuPlain.push(b.cpuMs);
    framesWalked = a.frames;
    framesPlain = b.frames;
    console.log(
      `run ${i + 1}: with walks ${a.rate.toFixed(0)} dumps/s (${a.cpuMs.toFixed(2)} ms CPU/dump), ` +
        `without ${b.rate.toFixed(0)} dumps/s (${b.cpuMs.toFixed(2)} ms CPU/dump)`,
    );
  }
  const best = Math.max(...walked);
  const bestPlain = Math.max(...plain);
  console.log(
    `analyze --engine builtin, ${COUNT} example dumps: with stack walks best ${best.toFixed(0)} dumps/s ` +
      `(${framesWalked.toFixed(1)} frames/record), without best ${bestPlain.toFixed(0)} dumps/s ` +
      `(${framesPlain.toFixed(1)} frames/record); ratio ${(best / bestPlain).toFixed(2)}; ` +
      `goal >= 1000 dumps/s with walks: ${best >= 1000 ? 'OK' : 'MISSED'}`,
  );
  // CPU time per dump does not depend on what else the machine runs: the walk's own cost.
  const cpu = Math.min(...cpuWalked);
  const cpuBase = Math.min(...cpuPlain);
  console.log(
    `CPU per dump: with walks ${cpu.toFixed(2)} ms, without ${cpuBase.toFixed(2)} ms (walk +${(cpu - cpuBase).toFixed(2)} ms); ` +
      `CPU-bound ceiling on one core ${(1000 / cpu).toFixed(0)} vs ${(1000 / cpuBase).toFixed(0)} dumps/s`,
  );
  const found = Object.entries(images).filter(([, where]) => where !== 'not found');
  console.log(
    `images found: ${found.length} of ${Object.keys(images).length} modules the walks asked for ` +
      `(${found.map(([name]) => name).join(', ') || 'none: set WINEPREFIX or --image-path'})`,
  );
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(
    `peak RSS of this process (every run): ${peakMb.toFixed(0)} MB; goal <= 150 MB: ${peakMb <= 150 ? 'OK' : 'MISSED'}`,
  );
} finally {
  rmSync(input, { recursive: true, force: true });
}
