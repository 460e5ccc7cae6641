// What heap-trend's live .NET tiers cost the program and the harness (issue 32), side by side with
// the tools a user would run by hand, in one run on one process: the CLR program's `sessions` mode
// holding a big array (--heap-mb, 1 GB by default), growing by 16 KB sessions, with its 1 ms gap
// watcher on (--gap-watch: every second, the longest the thread was kept from running; a runtime
// suspension holds it, and so does the OS on a loaded machine, hence the unwatched rounds beside).
//   1. The sizes tier against nothing at all, alternated (A B A B, --window-s each): unwatched; the
//      counters session heap-trend's sizes tier reads (one reading per --interval-ms); and
//      `dotnet-counters collect` on the same counters. Per-second longest gap, CPU, bytes written.
//   2. heap-trend --clr in tiers: --samples N at --interval, a gcdump every --types-every. Samples
//      taken, the spacing achieved against the interval, the stop per types sample (the runtime's
//      GC pause counter, and the gap watcher around it), the harness's CPU (this process and every
//      child it waited for: the counters client, dotnet-gcdump), the bytes per types sample.
//   3. By hand on the same process: `dotnet-gcdump collect` (--hand-runs) and one
//      `dotnet-dump collect --type Heap`: GC pause counter, gap watcher, wall time, file size.
// Ends with one table. Quote the load printed at the top: the gaps of an unwatched round are the
// machine's noise floor.
//
//   node --import tsx bench/heap-trend-tiers.ts [--samples 60] [--interval-ms 1000]
//        [--types-every 5] [--heap-mb 1024] [--hand-runs 3] [--window-s 15] [--rounds 2]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { collectGcDump } from '../src/engine/dialects/dotnet-gcdump/collect.js';
import { locateDotnetTool } from '../src/engine/dialects/dotnet-dump/locate.js';
import { collectDump } from '../src/engine/dialects/dotnet-dump/tool-run.js';
import { startClrCounters } from '../src/workflows/heap-trend/clr-counters.js';
import { runHeapTrend } from '../src/workflows/heap-trend/run-heap-trend.js';
import { median, sleep, startSessionsProgram, toolsDir } from './sessions-program.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SAMPLES = arg('--samples', 60);
const INTERVAL = arg('--interval-ms', 1000);
const EVERY = arg('--types-every', 5);
const HEAP_MB = arg('--heap-mb', 1024);
const HAND = arg('--hand-runs', 3);
const WINDOW_S = arg('--window-s', 15);
const ROUNDS = arg('--rounds', 2);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(`load average at start: ${load()} (2 cores shared)`);
const target = await startSessionsProgram(50, HEAP_MB, 'cdbh-tiers-bench-', ['--gap-watch']);
const { child, work, env, pid } = target;
// This process's CPU and its waited-for children's (/proc/self/stat utime stime cutime cstime).
const TICK = 100;
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i] ?? 0), 0);
  return (ticks * 1000) / TICK;
}
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');

interface Row {
  what: string;
  /** The target's stop per sample, as the gap watcher saw it (ms; per second for the rounds). */
  gapMedian: number;
  gapMax: number;
  /** The runtime's GC pause counter per sample (ms), when read. */
  gcPause?: number;
  /** CPU per sample of the harness or the tool (ms). */
  cpu?: number;
  /** Bytes written per sample. */
  bytes?: number;
  wall?: number;
  note?: string;
}
const rows: Row[] = [];

/** CPU ms (user + system) of `pids` so far, from /proc/PID/stat (0 for one that is gone). */
function cpuOf(pids: readonly number[]): number {
  let ticks = 0;
  for (const p of pids) {
    const text = readFileSync(`/proc/${p}/stat`, { encoding: 'utf8', flag: 'r' }).toString();
    const fields = text.split(') ')[1]?.split(' ') ?? [];
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return (ticks * 1000) / TICK;
}
/** This process's children now (/proc/self/task/TID/children). */
function children(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) =>
    readFileSync(`/proc/self/task/${tid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((x) => x !== '')
      .map(Number),
  );
}

/** The one-second gap windows that ended while `body` ran (and one second after). */
async function watched<T>(body: () => Promise<T>): Promise<{ value: T; gaps: number[] }> {
  const from = Date.now();
  const value = await body();
  await sleep(1100);
  return { value, gaps: target.gapsBetween(from + 1000, Date.now()) };
}

try {
  console.log(`program pid ${pid}, heap ~${HEAP_MB} MB held, growing 16 KB per 50 ms`);

  // 1. The sizes tier against unwatched rounds and dotnet-counters, alternated.
  const round = { none: [] as number[], sizes: [] as number[], counters: [] as number[] };
  const sizesCost = { cpu: 0, readings: 0, gcPause: [] as number[] };
  const countersCost = { cpu: 0, seconds: 0, bytes: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    round.none.push(...(await watched(() => sleep(WINDOW_S * 1000))).gaps);
    // The sizes tier in its steady state: the client started and its first reading in before the
    // window opens (a run pays that once); its CPU read from /proc while it runs.
    const before = new Set(children());
    const feed = await startClrCounters({ pid, intervalMs: INTERVAL, env });
    const first = await feed.latest();
    const helpers = children().filter((c) => !before.has(c));
    const cpu0 = process.cpuUsage();
    const helperCpu0 = cpuOf(helpers);
    const from = Date.now();
    const end = performance.now() + WINDOW_S * 1000;
    let last = first;
    let readings = 0;
    while (performance.now() < end) {
      await sleep(INTERVAL);
      last = await feed.latest();
      readings++;
    }
    const own = process.cpuUsage(cpu0);
    sizesCost.cpu += (own.user + own.system) / 1000 + cpuOf(helpers) - helperCpu0;
    sizesCost.readings += readings;
    sizesCost.gcPause.push((last?.gcPauseTotalMs ?? NaN) - (first?.gcPauseTotalMs ?? NaN));
    round.sizes.push(...target.gapsBetween(from + 1000, Date.now()));
    await feed.close();
    const file = join(work, `counters-${r}.csv`);
    const cpu1 = cpuMs();
    // Its first 3 s (a .NET tool starting) are left out of the gaps, as the sizes tier's start is.
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const tool = spawn(
        'dotnet',
        ['tool', 'run', 'dotnet-counters', '--', 'collect', '-p', String(pid)]
          .concat(['--counters', 'System.Runtime', '--refresh-interval', '1'])
          .concat(['--format', 'csv', '-o', file, '--duration', `00:00:00:${WINDOW_S + 3}`]),
        { cwd: toolsDir, env, stdio: 'ignore' },
      );
      tool.once('error', reject);
      tool.once('exit', () => resolve());
    });
    const counted = target.gapsBetween(started + 4000, Date.now());
    countersCost.cpu += cpuMs() - cpu1;
    countersCost.seconds += WINDOW_S + 3;
    countersCost.bytes += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    round.counters.push(...counted);
    console.log(
      `round ${r + 1}: per-second longest gap, median/max ms: unwatched ${ms(median(round.none))}/${ms(Math.max(...round.none))}, ` +
        `sizes tier ${ms(median(round.sizes))}/${ms(Math.max(...round.sizes))}, dotnet-counters ${ms(median(round.counters))}/${ms(Math.max(...round.counters))} (load ${load()})`,
    );
  }
  const over10 = (xs: number[]) => `${xs.filter((x) => x > 10).length}/${xs.length} s over 10 ms`;
  rows.push({
    what: 'nothing (unwatched), per second',
    gapMedian: median(round.none),
    gapMax: Math.max(...round.none),
    note: over10(round.none),
  });
  rows.push({
    what: 'heap-trend sizes tier (counters), per sample, steady',
    gapMedian: median(round.sizes),
    gapMax: Math.max(...round.sizes),
    gcPause: median(sizesCost.gcPause) / (WINDOW_S / (INTERVAL / 1000)),
    cpu: sizesCost.cpu / Math.max(1, sizesCost.readings),
    bytes: 0,
    note: `${over10(round.sizes)}; GC pause = natural GCs`,
  });
  rows.push({
    what: 'dotnet-counters collect, per second (CPU: start included)',
    gapMedian: median(round.counters),
    gapMax: Math.max(...round.counters),
    cpu: countersCost.cpu / countersCost.seconds,
    bytes: countersCost.bytes / countersCost.seconds,
    note: over10(round.counters),
  });

  // 2. heap-trend in tiers.
  const cpu0 = cpuMs();
  const t0 = performance.now();
  const { report, samples } = await runHeapTrend({
    pid,
    engine: 'dotnet-dump',
    intervalMs: INTERVAL,
    samples: SAMPLES,
    typesEvery: EVERY,
    outDir: join(work, 'out'),
    env,
    debuggerPath: toolsDir,
    retentionTypes: 3,
  });
  const wallS = (performance.now() - t0) / 1000;
  const cpu = cpuMs() - cpu0;
  const gaps = samples.slice(1).map((s, i) => s.elapsedMs - (samples[i]?.elapsedMs ?? 0));
  const within = gaps.filter((g) => Math.abs(g - INTERVAL) <= INTERVAL * 0.1).length;
  const typed = samples.filter((s) => s.clrTypes !== undefined);
  // The gap watcher's windows around each snapshot (its time is the middle of the tool's run).
  const typedGaps = typed.map((s) => {
    const mid = Date.parse(s.clrTypesTime ?? s.time);
    const half = (s.suspendedUpperBoundMs ?? s.suspendedMs) / 2;
    return Math.max(0, ...target.gapsBetween(mid - half, mid + half + 1000));
  });
  const pauses = typed.filter((s) => s.suspendedHow === 'measured').map((s) => s.suspendedMs);
  const bytes = typed.flatMap((s) => (s.gcdumpBytes === undefined ? [] : [s.gcdumpBytes]));
  console.log(
    `\nheap-trend --clr (tiers): ${samples.length}/${SAMPLES} samples taken (${report.status}), ` +
      `${typed.length} with types, in ${wallS.toFixed(1)} s; harness CPU ${(cpu / 1000).toFixed(1)} s in all, ` +
      `${(cpu / samples.length).toFixed(0)} ms per sample`,
  );
  console.log(
    `  spacing: asked ${INTERVAL} ms; median ${median(gaps)} ms, min ${Math.min(...gaps)}, max ${Math.max(...gaps)} ms, ` +
      `first ${gaps[0] ?? '-'} ms; ${within}/${gaps.length} within 10 %`,
  );
  console.log(
    `  types samples: GC pause counter measured on ${pauses.length}/${typed.length}; ` +
      `verdict: ${report.verdict?.headline ?? '-'}; retention: ${report.retentionGroups?.[0]?.text ?? '-'}`,
  );
  rows.push({
    what: 'heap-trend types tier (gcdump), per types sample',
    gapMedian: median(typedGaps),
    gapMax: Math.max(0, ...typedGaps),
    gcPause: median(pauses),
    bytes: median(bytes),
    wall: median(typed.map((s) => s.suspendedUpperBoundMs ?? s.suspendedMs)),
    note: `run: ${samples.length}/${SAMPLES} samples, CPU ${(cpu / 1000).toFixed(0)} s in all`,
  });

  // 3. By hand on the same process, with the runtime's own pause counter beside.
  const counters = await startClrCounters({ pid, intervalMs: 1000, env });
  const pauseTotal = async (): Promise<number> =>
    (await counters.since?.(Date.now(), 5000))?.gcPauseTotalMs ?? NaN;
  const dumpTool = locateDotnetTool('dotnet-dump', env, toolsDir);
  const hand = async (kind: 'gcdump' | 'dump', run: number) => {
    const file = join(work, `hand-${kind}-${run}.${kind === 'dump' ? 'core' : 'gcdump'}`);
    const before = await pauseTotal();
    const cpuBefore = cpuMs();
    const { value: wall, gaps: seen } = await watched(async () => {
      const began = performance.now();
      if (kind === 'gcdump')
        await collectGcDump(pid, file, { env, toolPath: toolsDir, timeoutMs: 300_000 });
      else await collectDump(dumpTool, pid, file, { env, timeoutMs: 600_000, kind: 'heap' });
      return performance.now() - began;
    });
    const toolCpu = cpuMs() - cpuBefore;
    const after = await pauseTotal();
    const size = statSync(file).size;
    rmSync(file, { force: true });
    return { wall, gcPause: after - before, gap: Math.max(0, ...seen), size, cpu: toolCpu };
  };
  const byHand: Record<'gcdump' | 'dump', Awaited<ReturnType<typeof hand>>[]> = {
    gcdump: [],
    dump: [],
  };
  for (let run = 0; run < HAND; run++) {
    byHand.gcdump.push(await hand('gcdump', run));
    if (run === 0) byHand.dump.push(await hand('dump', run)); // one: it writes the whole heap
  }
  await counters.close();
  for (const [kind, r] of Object.entries(byHand)) {
    rows.push({
      what: kind === 'dump' ? 'dotnet-dump collect --type Heap' : 'dotnet-gcdump collect',
      gapMedian: median(r.map((x) => x.gap)),
      gapMax: Math.max(...r.map((x) => x.gap)),
      gcPause: median(r.map((x) => x.gcPause)),
      cpu: median(r.map((x) => x.cpu)),
      bytes: median(r.map((x) => x.size)),
      wall: median(r.map((x) => x.wall)),
      note: `${r.length} run(s)`,
    });
  }

  console.log(`\nload average at end: ${load()}`);
  console.log(
    '\n| what | stop seen by the gap watcher, median / max ms | GC pause counter ms | CPU ms | bytes written | wall ms | note |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.what} | ${ms(r.gapMedian)} / ${ms(r.gapMax)} | ${r.gcPause === undefined ? '-' : ms(r.gcPause)} | ` +
        `${r.cpu === undefined ? '-' : r.cpu.toFixed(0)} | ${r.bytes === undefined ? '-' : r.bytes.toFixed(0)} | ` +
        `${r.wall === undefined ? '-' : r.wall.toFixed(0)} | ${r.note ?? ''} |`,
    );
  }
  const gcdumpPause = median(byHand.gcdump.map((x) => x.gcPause));
  const gcdumpGap = median(byHand.gcdump.map((x) => x.gap));
  const dumpGap = median(byHand.dump.map((x) => x.gap));
  console.log(
    `\ngoals: sizes tier stop: median per-second gap ${ms(median(round.sizes))} ms against ${ms(median(round.none))} unwatched ` +
      `(difference ${ms(median(round.sizes) - median(round.none))} ms; goal <= 10 ms); CPU per sizes sample ${(sizesCost.cpu / Math.max(1, sizesCost.readings)).toFixed(0)} ms (<= 200); ` +
      `spacing ${within}/${gaps.length} within 10 %; ` +
      `types pause / gcdump's: counter ${(median(pauses) / Math.max(1, gcdumpPause)).toFixed(2)}, gap watcher ${(median(typedGaps) / Math.max(1, gcdumpGap)).toFixed(2)} (<= 1.5); ` +
      `/ dotnet-dump's (gap watcher) ${(median(typedGaps) / Math.max(1, dumpGap)).toFixed(3)} (<= 0.1); ` +
      `bytes / gcdump's ${(median(bytes) / Math.max(1, median(byHand.gcdump.map((x) => x.size)))).toFixed(2)} (<= 2); ` +
      `${samples.length}/${SAMPLES} samples, CPU ${(cpu / 1000).toFixed(0)} s (<= 300)`,
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
