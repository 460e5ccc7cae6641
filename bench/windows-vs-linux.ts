// Issue 31's speed goal: `analyze --engine cdb` under Windows node (the CLI as a real Windows
// process, under Wine: test/windows/windows-rig.ts) at most 2x the Linux CLI's time per dump,
// with the same Debugger Engine host. Three figures, each side by side and alternating
// (Windows, Linux, Windows, Linux…) so the machine's load falls on both sides alike:
//   fixed start  `node -e 0`: Windows node under Wine against Linux node, what every CLI run pays
//                before and after its work;
//   (a)          a whole CLI run on one dump: what a user waits for, node's start and exit included;
//   (b)          the per-dump marginal cost: a batch of N dumps (the example dumps copied --copies
//                times) minus a batch of 1, over N-1: the time per dump net of the fixed start.
// Both sides run the engine host under Wine, so both need the prefix's wineserver; it is kept
// running through the bench (`wineserver -p 30`: it ends 30 s after the last Wine process), and
// one warm-up run each way comes first, so neither side pays wineserver's start (about 2 s).
//   node --import tsx bench/windows-vs-linux.ts [--rounds 3] [--copies 3]
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { makeTempDir, removeTempDirs } from '../test/helpers/temp-dir.js';
import { REPO_ROOT, wineEnv } from '../test/helpers/wine.js';
import {
  ENGINE_HOST,
  runWindowsCli,
  runWindowsNode,
  windowsTierMissing,
  winPath,
} from '../test/windows/windows-rig.js';
import { option } from './bench-options.js';

const rounds = Number(option('--rounds', '3'));
const copies = Number(option('--copies', '3'));
const DUMPS = join(REPO_ROOT, 'examples', 'dumps');
const LINUX_HOST = join(REPO_ROOT, 'build', 'dbgeng', 'cdb');

const missing = windowsTierMissing();
if (missing !== null) {
  console.log(`windows-vs-linux: skipped: ${missing}`);
  process.exit(0);
}

interface Run {
  ms: number;
  code: number | null;
  /** Records with ok: true (-1 when the run had no --out). */
  ok: number;
}

function okRecords(out: string): number {
  try {
    return readFileSync(join(out, 'records.ndjson'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"ok":true')).length;
  } catch {
    return 0;
  }
}

/** Linux node with `args`, from the repository root; wall time from spawn to exit. */
function linuxNode(args: readonly string[]): Promise<{ ms: number; code: number | null }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...args], {
    cwd: REPO_ROOT,
    env: wineEnv(),
    stdio: 'ignore',
  });
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ ms: performance.now() - started, code });
    });
  });
}

async function linuxAnalyze(input: string): Promise<Run> {
  const out = makeTempDir('bench-linux');
  const run = await linuxNode([
    join(REPO_ROOT, 'bin', 'cdb-harness.js'),
    'analyze',
    input,
    '--engine',
    'cdb',
    '--debugger',
    LINUX_HOST,
    '--out',
    out,
  ]);
  return { ...run, ok: okRecords(out) };
}

async function windowsAnalyze(input: string): Promise<Run> {
  const out = makeTempDir('bench-win');
  const run = await runWindowsCli(
    [
      'analyze',
      winPath(input),
      '--engine',
      'cdb',
      '--debugger',
      winPath(ENGINE_HOST),
      '--out',
      winPath(out),
    ],
    { timeoutMs: 600_000 },
  );
  return { ms: run.ms, code: run.timedOut ? null : run.code, ok: okRecords(out) };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** A run that did not end well makes its figure meaningless: say so and stop. */
function check(what: string, run: Run, dumps: number): void {
  if (run.code !== 0 || run.ok !== dumps) {
    throw new Error(`${what}: exit ${String(run.code)}, ${run.ok} of ${dumps} records ok`);
  }
}

try {
  spawnSync('wineserver', ['-p', '30'], { env: wineEnv(), stdio: 'ignore' });
  const dumps = readdirSync(DUMPS)
    .filter((f) => f.endsWith('.dmp'))
    .sort();
  const batchDir = makeTempDir('bench-batch');
  for (let copy = 1; copy <= copies; copy++) {
    for (const dump of dumps) copyFileSync(join(DUMPS, dump), join(batchDir, `${copy}-${dump}`));
  }
  const batchSize = dumps.length * copies;
  const oneDir = makeTempDir('bench-one');
  copyFileSync(join(DUMPS, dumps[0]!), join(oneDir, dumps[0]!));

  console.log(`load average at start: ${load()} (${rounds} round(s), alternating)`);
  // Warm-up: wineserver and its services up, the files in the page cache, on both sides.
  check('warm-up, Windows', await windowsAnalyze(oneDir), 1);
  check('warm-up, Linux', await linuxAnalyze(oneDir), 1);

  const startWin: number[] = [];
  const startLinux: number[] = [];
  for (let round = 0; round < Math.max(3, rounds); round++) {
    startWin.push((await runWindowsNode(['-e', '0'])).ms);
    startLinux.push((await linuxNode(['-e', '0'])).ms);
  }
  console.log(
    `fixed start, node -e 0: Windows node ${sec(median(startWin))}, Linux node ${sec(median(startLinux))} (medians of ${startWin.length}; wineserver running)`,
  );

  console.log('\n(a) one dump per CLI run, node start and exit included');
  console.log('dump                 Windows node   Linux node   ratio');
  const allWin: number[] = [];
  const allLinux: number[] = [];
  for (const dump of dumps) {
    const win: number[] = [];
    const lin: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const w = await windowsAnalyze(join(DUMPS, dump));
      check(`(a) ${dump}, Windows`, w, 1);
      const l = await linuxAnalyze(join(DUMPS, dump));
      check(`(a) ${dump}, Linux`, l, 1);
      win.push(w.ms);
      lin.push(l.ms);
    }
    allWin.push(...win);
    allLinux.push(...lin);
    console.log(
      `${dump.padEnd(20)} ${sec(median(win)).padStart(12)} ${sec(median(lin)).padStart(12)} ${(median(win) / median(lin)).toFixed(2).padStart(6)}x`,
    );
  }
  const ratioA = median(allWin) / median(allLinux);
  console.log(
    `(a) all runs: Windows ${sec(median(allWin))}, Linux ${sec(median(allLinux))}, ratio ${ratioA.toFixed(2)}x (goal <= 2x: ${ratioA <= 2 ? 'met' : 'NOT met'})`,
  );

  console.log(
    `\n(b) per-dump marginal cost: (batch of ${batchSize} - batch of 1) / ${batchSize - 1}, one CLI run each`,
  );
  console.log('round   Windows N / 1 / per dump        Linux N / 1 / per dump          ratio');
  const marginWin: number[] = [];
  const marginLinux: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const wN = await windowsAnalyze(batchDir);
    check('(b) batch, Windows', wN, batchSize);
    const lN = await linuxAnalyze(batchDir);
    check('(b) batch, Linux', lN, batchSize);
    const w1 = await windowsAnalyze(oneDir);
    check('(b) one, Windows', w1, 1);
    const l1 = await linuxAnalyze(oneDir);
    check('(b) one, Linux', l1, 1);
    const mw = (wN.ms - w1.ms) / (batchSize - 1);
    const ml = (lN.ms - l1.ms) / (batchSize - 1);
    marginWin.push(mw);
    marginLinux.push(ml);
    console.log(
      `${String(round + 1).padEnd(7)} ${sec(wN.ms)} / ${sec(w1.ms)} / ${sec(mw)}    ${sec(lN.ms)} / ${sec(l1.ms)} / ${sec(ml)}    ${(mw / ml).toFixed(2)}x`,
    );
  }
  const ratioB = median(marginWin) / median(marginLinux);
  console.log(
    `(b) per dump: Windows ${sec(median(marginWin))}, Linux ${sec(median(marginLinux))}, ratio ${ratioB.toFixed(2)}x (goal <= 2x: ${ratioB <= 2 ? 'met' : 'NOT met'})`,
  );
  console.log(`load average at end: ${load()}`);
} finally {
  removeTempDirs();
}
