// Where the time of one `analyze --engine cdb` CLI run on one dump goes, Windows node under Wine
// against Linux node (issue 31's speed goal; bench/windows-vs-linux.ts gives the totals). Each run
// is preloaded with test/windows/scripts/phase-marks.js, which writes epoch-millisecond marks; this
// bench sets them against its own clock around the spawn. Runs alternate Windows, Linux, …;
// medians per phase. Both sides run the engine host under Wine with wineserver kept running
// (`wineserver -p 30`) and one warm-up run each way first.
//   node --import tsx bench/windows-phases.ts [--rounds 5] [--dump av-write-a.dmp]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTempDir, removeTempDirs } from '../test/helpers/temp-dir.js';
import { REPO_ROOT, wineEnv } from '../test/helpers/wine.js';
import {
  ENGINE_HOST,
  runWindowsNode,
  windowsTierMissing,
  windowsEnv,
  winPath,
} from '../test/windows/windows-rig.js';
import { option } from './bench-options.js';

const rounds = Number(option('--rounds', '5'));
const dump = join(REPO_ROOT, 'examples', 'dumps', option('--dump', 'av-write-a.dmp'));
const MARKS = join(REPO_ROOT, 'test', 'windows', 'scripts', 'phase-marks.js');
const CLI = join(REPO_ROOT, 'bin', 'cdb-harness.js');

const missing = windowsTierMissing();
if (missing !== null) {
  console.log(`windows-phases: skipped: ${missing}`);
  process.exit(0);
}

interface Marks {
  origin: number;
  bootstrapped: number;
  spawnCalled?: number;
  spawnReturned?: number;
  firstOutput?: number;
  quitWritten?: number;
  ptyExit?: number;
  exit: number;
}

const PHASES = [
  ['process start, until node runs JavaScript', 'started', 'bootstrapped'],
  ['CLI modules, arguments, dump read: until the spawn', 'bootstrapped', 'spawnCalled'],
  ['pty spawn (synchronous)', 'spawnCalled', 'spawnReturned'],
  ['debugger start: spawn returned -> its first output', 'spawnReturned', 'firstOutput'],
  ['setup and triage commands, until `q`', 'firstOutput', 'quitWritten'],
  ['`q` -> exit reported', 'quitWritten', 'ptyExit'],
  ['record, summary, report: until the exit event', 'ptyExit', 'exit'],
  ['process end: exit event -> the process is gone', 'exit', 'ended'],
] as const;

type Stamps = Marks & { started: number; ended: number };

async function windowsRun(): Promise<Stamps> {
  const dir = makeTempDir('phases-win');
  const marks = join(dir, 'marks.json');
  const started = Date.now();
  const run = await runWindowsNode(
    [
      '--import',
      // The Z: drive is the Linux root under Wine: file:///Z:/work/…/phase-marks.js.
      `file:///Z:${MARKS}`,
      CLI,
      'analyze',
      winPath(dump),
      '--engine',
      'cdb',
      '--debugger',
      winPath(ENGINE_HOST),
      '--out',
      winPath(join(dir, 'out')),
    ],
    { timeoutMs: 120_000, env: windowsEnv({ PHASE_MARKS_FILE: winPath(marks) }) },
  );
  const ended = Date.now();
  if (run.code !== 0) throw new Error(`Windows run: exit ${String(run.code)} ${run.stderr}`);
  return { ...(JSON.parse(readFileSync(marks, 'utf8')) as Marks), started, ended };
}

async function linuxRun(): Promise<Stamps> {
  const dir = makeTempDir('phases-linux');
  const marks = join(dir, 'marks.json');
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(MARKS).href,
      CLI,
      'analyze',
      dump,
      '--engine',
      'cdb',
      '--debugger',
      join(REPO_ROOT, 'build', 'dbgeng', 'cdb'),
      '--out',
      join(dir, 'out'),
    ],
    { cwd: REPO_ROOT, env: { ...wineEnv(), PHASE_MARKS_FILE: marks }, stdio: 'ignore' },
  );
  const code = await new Promise<number | null>((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      done(exitCode);
    });
  });
  const ended = Date.now();
  if (code !== 0) throw new Error(`Linux run: exit ${String(code)}`);
  return { ...(JSON.parse(readFileSync(marks, 'utf8')) as Marks), started, ended };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const span = (s: Stamps, from: keyof Stamps, to: keyof Stamps) =>
  Number(s[to] ?? NaN) - Number(s[from] ?? NaN);

try {
  spawnSync('wineserver', ['-p', '30'], { env: wineEnv(), stdio: 'ignore' });
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  await windowsRun();
  await linuxRun();
  const win: Stamps[] = [];
  const lin: Stamps[] = [];
  for (let round = 0; round < rounds; round++) {
    win.push(await windowsRun());
    lin.push(await linuxRun());
  }
  console.log(
    `analyze --engine cdb ${dump.split('/').pop() ?? ''}, one CLI run, medians of ${rounds} (ms)`,
  );
  console.log(`${'phase'.padEnd(52)} Windows    Linux`);
  for (const [name, from, to] of PHASES) {
    const w = median(win.map((s) => span(s, from, to)));
    const l = median(lin.map((s) => span(s, from, to)));
    console.log(`${name.padEnd(52)} ${w.toFixed(0).padStart(7)} ${l.toFixed(0).padStart(8)}`);
  }
  const w = median(win.map((s) => s.ended - s.started));
  const l = median(lin.map((s) => s.ended - s.started));
  console.log(
    `${'whole run (wall)'.padEnd(52)} ${w.toFixed(0).padStart(7)} ${l.toFixed(0).padStart(8)}   ratio ${(w / l).toFixed(2)}x`,
  );
  console.log(
    `load average at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  removeTempDirs();
}
