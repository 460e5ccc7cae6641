// bench: watch on Linux .NET (engine dotnet-diag, the runtime's diagnostics channel), against the
// lab's C# program run natively (build/dotnet/linux-x64/cdbh-dotnet). Three figures, goals from
// issue 33:
//   storm      exceptions logged per second with none lost (a paced storm of --rate/s for
//              --seconds s on 4 threads)                       goal >= 5,000/s, lost 0 (60 s)
//   throughput the program's work units/s, watched / unwatched, runs A B A B: an unpaced storm
//              (a loop that only throws), or with --tput-rate R throws paced at R/s inside
//              CPU-bound work (the program's --busy: a service's shape)      goal >= 90 %
//   latency    matching throw -> dump start (dumpStartAfterThrowMs), median of --dumps dumps
//                                                              goal <= 200 ms
//   node --import tsx bench/watch-dotnet.ts [--seconds 60] [--rate 6000] [--tput-seconds 10] [--dumps 5]
//     [--frames N (throughput run)] [--tput-rate R] [--only storm|throughput|latency]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findDiagHelper } from '../src/engine/dialects/dotnet-diag/index.js';
import { watch, type WatchOptions } from '../src/workflows/watch/watch.js';
import type { WatchExceptionLine } from '../src/workflows/watch/watch-records.js';
import { option } from './bench-options.js';

const PROGRAM = join(import.meta.dirname, '..', 'build', 'dotnet', 'linux-x64', 'cdbh-dotnet');

interface Run {
  pid: number;
  tmp: string;
  release: string;
  done: Promise<string>;
}

function start(args: string[]): Promise<Run> {
  const tmp = mkdtempSync(join(tmpdir(), 'cdbh-bench-dotnet-'));
  const release = join(tmp, 'go');
  const child = spawn(PROGRAM, [args[0] ?? 'storm', '--wait-file', release, ...args.slice(1)], {
    env: { ...process.env, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  const done = new Promise<string>((resolve) => child.once('close', () => resolve(out)));
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const m = /^PID (\d+)$/m.exec(out);
      if (m !== null) {
        clearInterval(poll);
        resolve({ pid: Number(m[1]), tmp, release, done });
      }
    }, 20);
    child.once('error', (e) => {
      clearInterval(poll);
      reject(e);
    });
  });
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
}

function stormLine(out: string): { thrown: number; work: number; ms: number } {
  // storm thrown=300000 work=300000 ms=60001 threads=4
  const m = /^storm thrown=(\d+) work=(\d+) ms=(\d+)/m.exec(out);
  if (m === null) throw new Error(`no storm line in: ${out.slice(-300)}`);
  return { thrown: Number(m[1]), work: Number(m[2]), ms: Number(m[3]) };
}

/**
 * Watches a run released once attached; the log's lines (none when `lines` is false: an unpaced
 * storm's log can pass the 512 MB a string may hold) and the summary.
 */
async function watched(run: Run, extra: Partial<WatchOptions>, lines = true) {
  const outDir = mkdtempSync(join(tmpdir(), 'cdbh-bench-watch-dotnet-'));
  const summary = await watch({
    engine: 'dotnet-diag',
    target: { kind: 'pid', pid: run.pid },
    outDir,
    env: { ...process.env, TMPDIR: run.tmp },
    onEvent: (e) => {
      if (e.type === 'attached') writeFileSync(run.release, '');
    },
    ...extra,
  });
  const logged = lines
    ? readFileSync(join(outDir, 'exceptions.ndjson'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as WatchExceptionLine)
    : [];
  rmSync(outDir, { recursive: true, force: true });
  return { summary, lines: logged };
}

/** The lab program's `storm` command line: throws per second over threads, work between throws. */
function stormArgs(seconds: string, rate: string, threads: number, work: number): string[] {
  return [
    'storm',
    '--seconds',
    seconds,
    '--rate',
    rate,
    '--threads',
    `${threads}`,
    '--work',
    `${work}`,
  ];
}

async function storm(): Promise<void> {
  const seconds = option('--seconds', '60');
  const rate = option('--rate', '6000');
  const run = await start(stormArgs(seconds, rate, 4, 50));
  const { summary, lines } = await watched(run, { include: ['type:NoSuchException'] });
  const program = stormLine(await run.done);
  const storms = lines.filter((l) => l.clrType === 'CdbHarness.Targets.StormException');
  const first = Date.parse(storms[0]?.time ?? '');
  const last = Date.parse(storms.at(-1)?.time ?? '');
  const seqs = new Set(lines.map((l) => l.eventSeq));
  console.log(
    `storm: thrown ${program.thrown} in ${program.ms} ms (${Math.round((program.thrown * 1000) / program.ms)}/s); ` +
      `logged ${storms.length} (${Math.round((storms.length * 1000) / Math.max(1, last - first))}/s over the storm), ` +
      `lost ${program.thrown - storms.length} (runtime says ${summary.eventsLost ?? '?'}), ` +
      `duplicates ${lines.length - seqs.size}; delivery median ${median(storms.map((l) => l.eventDeliveryMs ?? NaN)).toFixed(1)} ms`,
  );
  rmSync(run.tmp, { recursive: true, force: true });
}

async function throughputOnce(watchIt: boolean, seconds: string): Promise<number> {
  const rate = option('--tput-rate', '0');
  const paced = rate === '0' ? [] : ['--busy'];
  const run = await start([...stormArgs(seconds, rate, 2, 2000), ...paced]);
  // --frames 0: no stacks, so no method events either: the session asks for the throws alone.
  if (watchIt)
    await watched(
      run,
      { include: ['type:NoSuchException'], frames: Number(option('--frames', '10')) },
      false,
    );
  else writeFileSync(run.release, '');
  const program = stormLine(await run.done);
  rmSync(run.tmp, { recursive: true, force: true });
  return (program.work * 1000) / program.ms;
}

async function throughput(): Promise<void> {
  const seconds = option('--tput-seconds', '10');
  const plain: number[] = [];
  const under: number[] = [];
  for (let i = 0; i < 2; i++) {
    plain.push(await throughputOnce(false, seconds));
    under.push(await throughputOnce(true, seconds));
  }
  console.log(
    `throughput (${option('--tput-rate', '0') === '0' ? 'unpaced storm' : `${option('--tput-rate', '0')} throws/s in CPU-bound work`}, 2 threads, work units/s, A B A B): unwatched ${plain.map(Math.round).join(', ')}; ` +
      `watched ${under.map(Math.round).join(', ')}; ratio of medians ${((median(under) / median(plain)) * 100).toFixed(1)} %`,
  );
}

async function latency(): Promise<void> {
  const dumps = Number(option('--dumps', '5'));
  const acts = [...Array.from({ length: dumps }, () => 'invalid-op'), 'hold'].join(',');
  const run = await start(['exceptions', '-i', '3000', '--acts', acts, '--hold', '5000']);
  const { lines } = await watched(run, {
    include: ['type:System.InvalidOperationException'],
    maxDumps: dumps,
    exitAfterMax: true,
    dumpKind: 'mini',
  });
  await run.done;
  const after = lines
    .filter((l) => l.action === 'dumped')
    .map((l) => l.dumpStartAfterThrowMs ?? NaN);
  const delivery = lines.filter((l) => l.action === 'dumped').map((l) => l.eventDeliveryMs ?? NaN);
  console.log(
    `latency: ${after.length} dumps; throw -> dump start median ${median(after).toFixed(1)} ms ` +
      `(all: ${after.map((v) => v.toFixed(0)).join(', ')}); of which event delivery median ${median(delivery).toFixed(1)} ms`,
  );
  rmSync(run.tmp, { recursive: true, force: true });
}

async function main(): Promise<void> {
  if (process.platform !== 'linux' || !existsSync(PROGRAM) || findDiagHelper() === undefined) {
    console.log(
      'needs Linux, build/dotnet/linux-x64/cdbh-dotnet and cdbh-diag (npm run setup); nothing measured',
    );
    return;
  }
  const only = option('--only', 'all');
  if (only === 'all' || only === 'storm') await storm();
  if (only === 'all' || only === 'throughput') await throughput();
  if (only === 'all' || only === 'latency') await latency();
}

await main();
