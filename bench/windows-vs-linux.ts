// Issue 31's speed goal: `analyze --engine cdb` under Windows node (the CLI as a real Windows
// process, under Wine: test/windows/windows-rig.ts) at most 2x the Linux CLI's time, per dump,
// with the same Debugger Engine host. Runs alternate (Windows, Linux, Windows, Linux…) so the
// machine's load falls on both sides alike; medians and the ratio per dump, then the whole folder
// once each way. Each run is a whole CLI start to exit (Windows node's own start, 2-4 s under
// Wine, is part of what a Windows user waits for).
//   node --import tsx bench/windows-vs-linux.ts [--rounds 2] [--folder yes]
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../test/helpers/temp-dir.js';
import { REPO_ROOT, wineEnv } from '../test/helpers/wine.js';
import {
  ENGINE_HOST,
  runWindowsCli,
  windowsTierMissing,
  winPath,
} from '../test/windows/windows-rig.js';
import { option } from './bench-options.js';

const rounds = Number(option('--rounds', '2'));
const folder = option('--folder', 'yes') === 'yes';
const DUMPS = join(REPO_ROOT, 'examples', 'dumps');
const LINUX_HOST = join(REPO_ROOT, 'build', 'dbgeng', 'cdb');

const missing = windowsTierMissing();
if (missing !== null) {
  console.log(`windows-vs-linux: skipped: ${missing}`);
  process.exit(0);
}

/** The Linux CLI (built dist, as a user runs it) on `input`; milliseconds and exit code. */
function linuxRun(input: string): Promise<{ ms: number; code: number | null }> {
  const out = makeTempDir('bench-linux');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'bin', 'cdb-harness.js'),
      'analyze',
      input,
      '--engine',
      'cdb',
      '--debugger',
      LINUX_HOST,
      '--out',
      out,
    ],
    { cwd: REPO_ROOT, env: wineEnv(), stdio: 'ignore' },
  );
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ ms: performance.now() - started, code });
    });
  });
}

async function windowsRun(input: string): Promise<{ ms: number; code: number | null }> {
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
  return { ms: run.ms, code: run.timedOut ? null : run.code };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const dumps = readdirSync(DUMPS).filter((f) => f.endsWith('.dmp'));
console.log(
  `analyze --engine cdb, one dump per CLI run, ${rounds} round(s) alternating Windows/Linux`,
);
console.log('dump                 Windows node   Linux node   ratio   exits');
const ratios: number[] = [];
for (const dump of dumps) {
  const win: number[] = [];
  const lin: number[] = [];
  const codes = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    const w = await windowsRun(join(DUMPS, dump));
    const l = await linuxRun(join(DUMPS, dump));
    win.push(w.ms);
    lin.push(l.ms);
    codes.add(`${String(w.code)}/${String(l.code)}`);
  }
  const ratio = median(win) / median(lin);
  ratios.push(ratio);
  console.log(
    `${dump.padEnd(20)} ${sec(median(win)).padStart(12)} ${sec(median(lin)).padStart(12)} ${ratio.toFixed(2).padStart(6)}x   ${[...codes].join(' ')}`,
  );
}
console.log(
  `per dump: ratio median ${median(ratios).toFixed(2)}x, worst ${Math.max(...ratios).toFixed(2)}x (goal <= 2x)`,
);
if (folder) {
  const w = await windowsRun(DUMPS);
  const l = await linuxRun(DUMPS);
  console.log(
    `whole folder (${dumps.length} dumps, one CLI run each way): Windows ${sec(w.ms)} (exit ${String(w.code)}), Linux ${sec(l.ms)} (exit ${String(l.code)}), ratio ${(w.ms / l.ms).toFixed(2)}x`,
  );
}
