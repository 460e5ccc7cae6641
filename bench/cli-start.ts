// CLI start-up cost against a bare `node -e 0`, measured side by side: each round spawns the
// baseline and then every CLI case once, in turn, so load on the machine hits all of them alike.
// Reports the median wall time of each and its ratio to the baseline's median.
// Goals: `--version` ≤ 1.3× (issue 22; 1.5× in issue 14), `--help` ≤ 2× (issue 22: it loaded every
// command module and execa's ~100 modules), `inspect --json` of a small dump ≤ 2.5× (issue 14).
//
//   npm run build && node --import tsx bench/cli-start.ts [--rounds 40] [--quick] [--bin PATH]
// It runs the BUILT CLI (bin/cdb-harness.js → dist/), as a user's shell does, never tsx.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(args[roundsAt + 1]) : args.includes('--quick') ? 10 : 40;
const binAt = args.indexOf('--bin');
/** `--bin OTHER/bin/cdb-harness.js` measures another build (e.g. an older checkout) instead. */
const BIN = binAt >= 0 ? args[binAt + 1]! : join(REPO_ROOT, 'bin', 'cdb-harness.js');
const DUMP = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');

interface Case {
  label: string;
  args: string[];
  goal?: number;
}

const CASES: Case[] = [
  { label: 'node -e 0 (baseline)', args: ['-e', '0'] },
  { label: 'cdb-harness --version', args: [BIN, '--version'], goal: 1.3 },
  {
    label: 'cdb-harness inspect --json (130 KB dump)',
    args: [BIN, 'inspect', '--json', DUMP],
    goal: 2.5,
  },
  { label: 'cdb-harness parse --help', args: [BIN, 'parse', '--help'] },
  { label: 'cdb-harness --help', args: [BIN, '--help'], goal: 2 },
  { label: 'cdb-harness analyze --help', args: [BIN, 'analyze', '--help'] },
];

function runOnce(c: Case): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, c.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`${c.label} exited ${result.status}: ${result.stderr.toString().trim()}`);
  }
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

if (binAt < 0 && !existsSync(join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js'))) {
  throw new Error('dist/ is missing: run `npm run build` first (the bench measures the built CLI)');
}

const times = CASES.map(() => [] as number[]);
// One warm-up round fills the page cache; it is not counted.
for (const c of CASES) runOnce(c);
for (let round = 0; round < ROUNDS; round++) {
  CASES.forEach((c, i) => times[i]!.push(runOnce(c)));
}

const baseline = median(times[0]!);
console.log(
  `CLI start-up of ${BIN}, ${ROUNDS} alternating rounds, node ${process.version}, medians:`,
);
let missed = 0;
CASES.forEach((c, i) => {
  const ms = median(times[i]!);
  const ratio = ms / baseline;
  const goal =
    c.goal === undefined
      ? ''
      : ratio <= c.goal
        ? `  (goal ≤ ${c.goal}×: met)`
        : `  (goal ≤ ${c.goal}×: MISSED)`;
  if (c.goal !== undefined && ratio > c.goal) missed++;
  console.log(
    `  ${c.label.padEnd(44)} ${ms.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}×${goal}`,
  );
});
if (missed > 0) process.exitCode = 1;
