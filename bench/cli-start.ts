// CLI start-up cost against a bare `node -e 0`, measured side by side: each round spawns the
// baseline and then every CLI case once, in turn, so load on the machine hits all of them alike.
// Reports the median wall time and the median CPU time (user+sys of the child; the figure a busy
// shared machine moves least) of each, and their ratios to the baseline's medians.
// Goals: `--version` ≤ 1.3× (issue 22; 1.5× in issue 14), `--help` ≤ 2× (issue 22: it loaded every
// command module and execa's ~100 modules), `inspect --json` of a small dump ≤ 2.5× (issues 14
// and 19). `analyze` of one dump is analyze's fixed cost (module loading, symbol set-up, the
// records, summary and report of a batch): 0.31 s CPU before the CLI was bundled (issue 19).
//
//   npm run build && node --import tsx bench/cli-start.ts [--rounds 40] [--quick] [--bin PATH]
// It runs the BUILT CLI (bin/cdb-harness.js → dist/), as a user's shell does, never tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(args[roundsAt + 1]) : args.includes('--quick') ? 10 : 40;
const binAt = args.indexOf('--bin');
/** `--bin OTHER/bin/cdb-harness.js` measures another build (e.g. an older checkout) instead. */
const BIN = binAt >= 0 ? args[binAt + 1]! : join(REPO_ROOT, 'bin', 'cdb-harness.js');
const DUMP = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');
/**
 * The child's CPU time comes from bash's `times` (the children's user and system time, to the
 * millisecond; GNU time prints hundredths, too coarse beside node's ~50-100 ms start).
 */
const TIMES = '"$@"; status=$?; times >&2; exit $status';
const hasBash = spawnSync('bash', ['-c', 'exit 0']).status === 0;
/** analyze's --out: a new folder for each run (analyze refuses one that has records). */
const OUT_MARK = '<out>';

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
  {
    label: 'cdb-harness analyze (1 dump, builtin)',
    args: [BIN, 'analyze', DUMP, '--engine', 'builtin', '--no-progress', '--out', OUT_MARK],
  },
];

interface Sample {
  wallMs: number;
  /** user+sys of the child, from bash's `times` (NaN without bash). */
  cpuMs: number;
}

function runOnce(c: Case): Sample {
  const out = c.args.includes(OUT_MARK) ? mkdtempSync(join(tmpdir(), 'cdbh-bench-start-')) : '';
  try {
    const args = c.args.map((arg) => (arg === OUT_MARK ? join(out, 'out') : arg));
    const command = hasBash
      ? ['bash', '-c', TIMES, 'run', process.execPath, ...args]
      : [process.execPath, ...args];
    const started = performance.now();
    const result = spawnSync(command[0]!, command.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const wallMs = performance.now() - started;
    const stderr = result.stderr.toString().trim();
    if (result.status !== 0) throw new Error(`${c.label} exited ${result.status}: ${stderr}`);
    // `times` ends with the children's user and system time. Sample: "0m0.231s 0m0.040s"
    const times = /(\d+)m(\d+\.\d+)s (\d+)m(\d+\.\d+)s$/.exec(stderr);
    const cpuMs =
      times === null
        ? Number.NaN
        : (Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4])) *
          1000;
    return { wallMs, cpuMs };
  } finally {
    if (out !== '') rmSync(out, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

if (binAt < 0 && !existsSync(join(REPO_ROOT, 'dist', 'bundle', 'cli', 'main.js'))) {
  throw new Error('dist/ is missing: run `npm run build` first (the bench measures the built CLI)');
}

const samples = CASES.map(() => [] as Sample[]);
// One warm-up round fills the page cache; it is not counted.
for (const c of CASES) runOnce(c);
for (let round = 0; round < ROUNDS; round++) {
  CASES.forEach((c, i) => samples[i]!.push(runOnce(c)));
}

const wall = samples.map((list) => median(list.map((s) => s.wallMs)));
const cpu = samples.map((list) => median(list.map((s) => s.cpuMs)));
console.log(
  `CLI start-up of ${BIN}, ${ROUNDS} alternating rounds, node ${process.version}, medians ` +
    `(wall; CPU user+sys${hasBash ? '' : ': no bash'}):`,
);
let missed = 0;
const verdict = (ratio: number, goal: number) => (ratio <= goal ? 'met' : 'MISSED');
CASES.forEach((c, i) => {
  const wallRatio = wall[i]! / wall[0]!;
  const cpuRatio = cpu[i]! / cpu[0]!;
  let goal = '';
  if (c.goal !== undefined) {
    goal = `  (goal ≤ ${c.goal}×: wall ${verdict(wallRatio, c.goal)}`;
    goal += hasBash ? `, CPU ${verdict(cpuRatio, c.goal)})` : ')';
    if (wallRatio > c.goal) missed++;
  }
  const cpuText = hasBash ? `${cpu[i]!.toFixed(0).padStart(5)} ms CPU ${cpuRatio.toFixed(2)}×` : '';
  console.log(
    `  ${c.label.padEnd(40)} ${wall[i]!.toFixed(1).padStart(7)} ms ${wallRatio.toFixed(2)}×  ${cpuText}${goal}`,
  );
});
if (missed > 0) process.exitCode = 1;
