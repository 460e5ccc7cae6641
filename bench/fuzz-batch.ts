// A batch of fuzzed dumps as `npm run test:fuzz` makes them (seeded mutations of the example
// dumps), at full size: 6,000 dumps through `analyze --engine builtin` in a fresh process.
// Goal (issue 22): peak RSS at most 300 MB (865 MB before the bounds), no record over 256 KB
// (15.7 MB before), wall time no worse (59 s before).
//   node --import tsx bench/fuzz-batch.ts [--dumps 6000] [--seed 22]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mutate, random } from '../test/helpers/dump-mutations.js';
import { REPO_ROOT } from '../test/helpers/wine.js';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const count = arg('dumps', 6000);
const seed = arg('seed', 22);
const root = join(tmpdir(), `cdbh-bench-fuzz-${process.pid}`);
try {
  const input = join(root, 'in');
  mkdirSync(input, { recursive: true });
  const examples = join(REPO_ROOT, 'examples', 'dumps');
  const sources = readdirSync(examples)
    .filter((f) => f.endsWith('.dmp'))
    .map((f) => readFileSync(join(examples, f)));
  const next = random(seed);
  for (let i = 0; i < count; i++) {
    const { bytes } = mutate(sources[i % sources.length]!, next);
    writeFileSync(join(input, `f${String(i).padStart(5, '0')}.dmp`), bytes);
  }
  const out = join(root, 'out');
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'bench', 'analyze-rss-child.ts'), input, out],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  const seconds = (performance.now() - started) / 1000;
  const rss = Number(/maxRssKb=(\d+)/.exec(child.stdout)?.[1] ?? 0) / 1024;
  const lines = readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n');
  let largest = 0;
  for (const line of lines) largest = Math.max(largest, Buffer.byteLength(line));
  console.log(
    `${count} fuzzed dumps (seed ${seed}): ${seconds.toFixed(1)} s, peak ${rss.toFixed(0)} MB, ${lines.length} records, largest ${largest} bytes (goals: <= 300 MB, <= 262144 bytes, <= 59 s)`,
  );
  if (child.status !== 0 && child.status !== 4 && child.status !== 1) {
    console.log(child.stderr.slice(-2000));
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
