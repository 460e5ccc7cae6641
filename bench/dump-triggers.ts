// bench: what watching for a dump trigger costs, and how soon the dump starts once it holds.
//  1. Sampling cost per second of watching, for -c (CPU from /proc, no debugger) and -m (commit
//     from winedbg `info maps`, a debugger that never attaches): the harness's CPU (its own plus
//     its reaped children's), and the target's longest stall (gaps between the ticks idle.exe
//     prints every 50 ms), side by side with the same target unwatched. Target suspension should be
//     zero: the gaps watched match the gaps unwatched.
//  2. Latency from the condition holding (cpuburn.exe printed "BURN start" + -s) to the dump
//     starting (the debugger attach begins): at most one sampling interval + 100 ms.
//   node --import tsx bench/dump-triggers.ts [seconds] [latency-runs]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AbortedError } from '../src/errors.js';
import { dumpSeries, type DumpSeriesOptions } from '../src/workflows/dump/dump-series.js';
import { makeTempDir, removeTempDirs } from '../test/helpers/temp-dir.js';
import {
  killAllTargets,
  sleep,
  startTarget,
  wineEnv,
  wineRigReady,
  type RunningTarget,
} from '../test/helpers/wine.js';

/** This process's CPU (user + system) plus its reaped children's, in ms (proc(5) fields 14–17). */
function cpuMsSoFar(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .slice(readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2)
    .split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime, 100 Hz
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + children;
}

/** Watches the target's tick lines arrive; the longest gap between two, in ms. */
function tickGaps(target: RunningTarget): { stop(): number } {
  let seen = target.log().split('\n').length;
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = target.log().split('\n').length;
    if (now > seen) {
      const t = performance.now();
      worst = Math.max(worst, t - last);
      last = t;
      seen = now;
    }
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return worst;
    },
  };
}

async function watchFor(
  seconds: number,
  options: Omit<DumpSeriesOptions, 'signal'>,
): Promise<{ cpuMsPerS: number }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), seconds * 1000);
  const before = cpuMsSoFar();
  const started = performance.now();
  try {
    await dumpSeries({ ...options, signal: controller.signal });
  } catch (error) {
    if (!(error instanceof AbortedError) && !controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  const elapsedS = (performance.now() - started) / 1000;
  return { cpuMsPerS: (cpuMsSoFar() - before) / elapsedS };
}

async function main(): Promise<void> {
  if (!wineRigReady()) {
    console.log('wine rig not ready (scripts/setup.sh); nothing measured');
    return;
  }
  const seconds = Number(process.argv[2] ?? 10);
  const runs = Number(process.argv[3] ?? 3);
  const env = wineEnv();
  const idle = await startTarget('idle', ['50']);
  const out = makeTempDir('bench-triggers');
  const base = { engine: 'winedbg' as const, target: { pid: idle.pid }, outDir: out, env };

  // The bench's own tick watcher costs CPU too: measured alone, then taken off each trigger's.
  const unwatched = tickGaps(idle);
  const cpuBefore = cpuMsSoFar();
  const quietFrom = performance.now();
  await sleep(seconds * 1000);
  const benchCpuPerS = (cpuMsSoFar() - cpuBefore) / ((performance.now() - quietFrom) / 1000);
  const baselineGap = unwatched.stop();
  const rows: [string, number, number][] = [];
  for (const [name, options] of [
    [
      '-c 100 -u (CPU, /proc)',
      { ...base, cpu: { direction: 'above', percent: 100, perCore: true, holdMs: 1000 } },
    ],
    [
      '-m 64GB (commit, winedbg info maps)',
      { ...base, trigger: { direction: 'above', thresholdBytes: 64 * 1024 ** 3 } },
    ],
  ] as const) {
    const gaps = tickGaps(idle);
    const { cpuMsPerS } = await watchFor(seconds, { ...options, pollMs: 1000 });
    rows.push([name, cpuMsPerS - benchCpuPerS, gaps.stop()]);
  }
  await idle.kill();

  // ---- latency -----------------------------------------------------------------------------
  const pollMs = 500;
  const holdMs = 1000;
  const latencies: { detectMs: number; toAttachMs: number; totalMs: number }[] = [];
  for (let run = 0; run < runs; run++) {
    const cueDir = makeTempDir('bench-cue');
    const cue = join(cueDir, 'go.cue');
    const burner = await startTarget('cpuburn', [`Z:${cue.replace(/\//g, '\\')}`, '8000']);
    let burnAt = 0;
    let firedAt = 0;
    let latencyMs = 0;
    await dumpSeries({
      engine: 'winedbg',
      target: { pid: burner.pid },
      outDir: makeTempDir('bench-latency'),
      env,
      kind: 'mini',
      pollMs,
      cpu: { direction: 'above', percent: 10, perCore: true, holdMs },
      onEvent: (event) => {
        if (event.type === 'cpu' && burnAt === 0 && !existsCue(cue)) {
          writeFileSync(cue, 'go');
          void burner.waitForLine(/^BURN start/, 30_000).then(() => (burnAt = performance.now()));
        }
        if (event.type === 'fired') firedAt = performance.now();
        if (event.type === 'trigger-event' && event.line.action === 'dumped') {
          latencyMs = event.line.latencyMs ?? NaN;
        }
      },
    });
    const heldAt = burnAt + holdMs;
    latencies.push({
      detectMs: firedAt - heldAt,
      toAttachMs: latencyMs,
      totalMs: firedAt - heldAt + latencyMs,
    });
    await burner.kill();
  }
  await killAllTargets();
  removeTempDirs();

  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? NaN;
  };
  console.log(`dump-triggers (winedbg under Wine, ${seconds} s per trigger, poll 1 s)`);
  console.log(
    `  unwatched idle.exe (50 ms ticks): longest gap ${baselineGap.toFixed(0)} ms; the bench's own watcher ${benchCpuPerS.toFixed(1)} ms CPU/s (taken off below)`,
  );
  for (const [name, cpu, gap] of rows) {
    console.log(
      `  ${name}: harness CPU ${cpu.toFixed(1)} ms per second watched; target's longest gap ${gap.toFixed(0)} ms (${(gap / baselineGap).toFixed(2)}x unwatched)`,
    );
  }
  console.log(
    `latency, -c 10 -u -s ${holdMs / 1000} --poll ${pollMs}ms (${runs} runs; bound ${pollMs + 100} ms)`,
  );
  for (const l of latencies) {
    console.log(
      `  held→fired ${l.detectMs.toFixed(0)} ms + fired→attach ${l.toAttachMs.toFixed(0)} ms = ${l.totalMs.toFixed(0)} ms`,
    );
  }
  console.log(`  median held→attach ${median(latencies.map((l) => l.totalMs)).toFixed(0)} ms`);
}

function existsCue(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

await main();
