// What heap-trend's live .NET tiers cost the program and the harness (issue 32), side by side with
// the tools a user would run by hand, in one run on one process: the CLR program's `sessions` mode
// holding a big array (--heap-mb, 1 GB by default) and growing by 16 KB sessions.
//   1. heap-trend --clr in tiers: --samples N at --interval, a gcdump every --types-every. Printed:
//      samples taken, the spacing achieved against the interval, the target's stop per sample as
//      the runtime counted it (GC pause total) and as the program's own stall watcher saw it
//      (stalls of 40 ms or more), the harness's CPU (this process and every child it waited for:
//      the counters client, dotnet-gcdump), the bytes written per types sample.
//   2. by hand, on the same process: `dotnet-gcdump collect` and `dotnet-dump collect --type Heap`
//      (their pause from the runtime's GC pause counter and the stall watcher, their wall time and
//      file size); `dotnet-counters`' cost is the counters tier's own (the same EventCounters
//      session: dotnet-counters is not run here).
//
//   node --import tsx bench/heap-trend-tiers.ts [--samples 60] [--interval-ms 1000]
//        [--types-every 5] [--heap-mb 1024] [--hand-runs 3]
import { readFileSync, rmSync, statSync } from 'node:fs';
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
const target = await startSessionsProgram(50, HEAP_MB, 'cdbh-tiers-bench-');
const { child, work, env } = target;
const lines = (): string[] => target.lines();
const stallsSince = (from: number): number[] => target.stallsSince(from);
// This process's CPU and its waited-for children's (/proc/self/stat utime stime cutime cstime).
const TICK = 100;
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i] ?? 0), 0);
  return (ticks * 1000) / TICK;
}

try {
  const { pid } = target;
  console.log(`program pid ${pid}, heap ~${HEAP_MB} MB held, growing 16 KB per 50 ms`);

  // 1. heap-trend in tiers.
  const fromLine = lines().length;
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
  const steady = gaps.slice(1);
  const within = steady.filter((g) => Math.abs(g - INTERVAL) <= INTERVAL * 0.1).length;
  const sizesOnly = samples.filter((s) => s.clrTypes === undefined);
  const typed = samples.filter((s) => s.clrTypes !== undefined);
  const stalls = stallsSince(fromLine);
  console.log(
    `\nheap-trend --clr (tiers): ${samples.length}/${SAMPLES} samples taken (${report.status}), ` +
      `${typed.length} with types, in ${wallS.toFixed(1)} s`,
  );
  console.log(
    `  spacing: asked ${INTERVAL} ms; median ${median(gaps)} ms, max ${Math.max(...gaps)} ms, ` +
      `first ${gaps[0] ?? '-'} ms; ${within}/${steady.length} after the first within 10 %`,
  );
  const pauses = typed.filter((s) => s.suspendedHow === 'measured').map((s) => s.suspendedMs);
  const bounds = typed.filter((s) => s.suspendedHow !== 'measured').map((s) => s.suspendedMs);
  console.log(
    `  target stop, sizes samples: ${sizesOnly.map((s) => s.suspendedMs).reduce((a, b) => Math.max(a, b), 0)} ms max ` +
      `(suspendedHow ${[...new Set(sizesOnly.map((s) => s.suspendedHow))].join('/')})`,
  );
  console.log(
    `  target stop, types samples: ${pauses.length} measured (the runtime's GC pause total across the snapshot): ` +
      `median ${median(pauses)} ms, max ${Math.max(0, ...pauses)} ms; ${bounds.length} upper bounds only ` +
      `(the tool's run): median ${median(bounds).toFixed(0)} ms`,
  );
  console.log(
    `  program's stall watcher during the run: ${stalls.length} stalls of >= 40 ms, max ${Math.max(0, ...stalls)} ms`,
  );
  console.log(
    `  harness CPU: ${(cpu / 1000).toFixed(1)} s in all, ${(cpu / samples.length).toFixed(0)} ms per sample ` +
      `(this process + the counters client + every dotnet-gcdump run)`,
  );
  const bytes = typed.flatMap((s) => (s.gcdumpBytes === undefined ? [] : [s.gcdumpBytes]));
  console.log(`  written per types sample: median ${(median(bytes) / 1024).toFixed(0)} KB`);
  const top = report.retention?.[0];
  console.log(
    `  verdict: ${
      report.clrTypes?.series
        .filter((s) => s.suspect)
        .map((s) => s.id)
        .join(', ') || 'no type flagged'
    }; ` + `retention: ${top === undefined ? '-' : `${top.type} ← ${top.roots[0]?.root ?? '?'}`}`,
  );

  // 2. By hand on the same process, with the runtime's own pause counter beside.
  const counters = await startClrCounters({ pid, intervalMs: 1000, env });
  const pauseTotal = async (): Promise<number> =>
    (await counters.since?.(Date.now(), 5000))?.gcPauseTotalMs ?? NaN;
  const gcdumpTool = locateDotnetTool('dotnet-gcdump', env, toolsDir);
  const dumpTool = locateDotnetTool('dotnet-dump', env, toolsDir);
  const hand = async (kind: 'gcdump' | 'dump', run: number) => {
    const file = join(work, `hand-${kind}-${run}.${kind === 'dump' ? 'core' : 'gcdump'}`);
    const before = await pauseTotal();
    const from = lines().length;
    const began = performance.now();
    if (kind === 'gcdump')
      await collectGcDump(pid, file, { env, toolPath: toolsDir, timeoutMs: 300_000 });
    else await collectDump(dumpTool, pid, file, { env, timeoutMs: 600_000, kind: 'heap' });
    const wall = performance.now() - began;
    await sleep(300);
    const after = await pauseTotal();
    const size = statSync(file).size;
    rmSync(file, { force: true });
    return { wall, gcPause: after - before, stall: Math.max(0, ...stallsSince(from)), size };
  };
  console.log(
    `\nby hand on the same process (${HAND} runs each, alternated; ${gcdumpTool.display}):`,
  );
  const rows: Record<'gcdump' | 'dump', Awaited<ReturnType<typeof hand>>[]> = {
    gcdump: [],
    dump: [],
  };
  for (let run = 0; run < HAND; run++) {
    rows.gcdump.push(await hand('gcdump', run));
    if (run === 0) rows.dump.push(await hand('dump', run)); // one: it writes the whole heap
  }
  await counters.close();
  for (const [kind, r] of Object.entries(rows)) {
    console.log(
      `  ${kind === 'dump' ? 'dotnet-dump collect --type Heap' : 'dotnet-gcdump collect        '}: ` +
        `GC pause counter +${median(r.map((x) => x.gcPause)).toFixed(0)} ms, program stalled ${median(r.map((x) => x.stall))} ms, ` +
        `wall ${median(r.map((x) => x.wall)).toFixed(0)} ms, file ${(median(r.map((x) => x.size)) / 1024).toFixed(0)} KB`,
    );
  }
  const gcPauseHand = median(rows.gcdump.map((x) => x.gcPause));
  const dumpStall = median(rows.dump.map((x) => x.stall));
  console.log(
    `\nratios: tiers types pause / dotnet-gcdump's = ${(median(pauses) / Math.max(1, gcPauseHand)).toFixed(2)} (goal <= 1.5); ` +
      `/ dotnet-dump's stall = ${(median(pauses) / Math.max(1, dumpStall)).toFixed(3)} (goal <= 0.1); ` +
      `bytes per types sample / gcdump file = ${(median(bytes) / Math.max(1, median(rows.gcdump.map((x) => x.size)))).toFixed(2)} (goal <= 2)`,
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
