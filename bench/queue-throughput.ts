// Benchmark: `analyze --queue` (BullMQ on a real redis-server) against a local `analyze`.
//   node --import tsx bench/queue-throughput.ts [--dumps 2000] [--rounds 3] [--workers 1,2,4] [--big 10000] [--jobs 8]
// Dumps are variants of the example dumps (the header's TimeDateStamp changed: each its own
// content, so each its own job), builtin engine.
// 1. Per-job overhead: the same dumps analysed locally (analyzeDumps, --jobs J) and through the
//    queue by one in-process worker (--jobs J) with the collector in the same process, after one
//    warm-up of each (code loaded, files cached), in alternating pairs; a pair's overhead is
//    (queue − local) / dumps. Printed: the median over the pairs with min and max (goal ≤ 2 ms per
//    dump, MET/MISSED on the median), and the CPU both runs used (this process, plus
//    redis-server's for the queue) per dump, which a loaded machine disturbs less than wall time.
// 2. Throughput with 1, 2 and 4 worker processes (`cdb-harness worker --jobs 2` each) and the
//    collector: dumps/s, the median of the rounds.
// 3. The builtin workers (the best count of 2.) over `--big` dumps: dumps/s and the collector's
//    peak RSS.
// Each run uses a fresh queue name, so no result of an earlier run is reused.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeThroughQueue } from '../src/queue/queue-analyze.js';
import { parseRedisUrl } from '../src/queue/redis-url.js';
import { runWorker } from '../src/queue/worker.js';
import { analyzeDumps } from '../src/workflows/analyze/analyze.js';
import { RedisServer } from '../test/helpers/redis-server.js';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

const DUMPS = Number(option('--dumps', '2000'));
const ROUNDS = Number(option('--rounds', '3'));
const WORKER_COUNTS = option('--workers', '1,2,4').split(',').map(Number);
const BIG = Number(option('--big', '10000'));
/** Dumps at once, locally and per worker: enough to hide Redis round trips (local default 4 x cores). */
const JOBS = Number(option('--jobs', '8'));
const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');
const CLI = join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts');

function variants(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdbh-bench-queue-'));
  const sources = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.dmp'))
    .map((f) => readFileSync(join(EXAMPLES, f)));
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.from(sources[i % sources.length]!);
    bytes.writeUInt32LE((bytes.readUInt32LE(20) + i + 1) >>> 0, 20);
    writeFileSync(join(dir, `v${String(i).padStart(6, '0')}.dmp`), bytes);
  }
  return dir;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let run = 0;
const freshName = () => `bench-${process.pid}-${++run}`;

/** CPU ms of a process so far (user + system), from /proc/PID/stat (fields 14 and 15, in ticks). */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Timed {
  ms: number;
  /** CPU of this process during the run, and of redis-server (queue runs). */
  cpuMs: number;
  redisCpuMs: number;
}

/** The redis-server of the run (its CPU counts in the queue runs). */
const redisProcess: { pid: number | undefined } = { pid: undefined };

async function timed(run: () => Promise<{ ok: number; dumps: number; failed: number }>) {
  const cpu = process.cpuUsage();
  const redis0 = processCpuMs(redisProcess.pid);
  const t = performance.now();
  const summary = await run();
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  if (summary.ok !== summary.dumps) throw new Error(`${summary.failed} failed`);
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    redisCpuMs: processCpuMs(redisProcess.pid) - redis0,
  };
}

async function collect(url: string, name: string, input: string): Promise<Timed> {
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-queue-out-'));
  try {
    return await timed(
      async () =>
        (
          await analyzeThroughQueue({
            inputs: [input],
            outDir: out,
            target: parseRedisUrl(url),
            queueName: name,
            engines: ['builtin'],
            pollMs: 500,
          })
        ).summary,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function local(input: string): Promise<Timed> {
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-queue-out-'));
  try {
    return await timed(
      async () =>
        (await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin', jobs: JOBS }))
          .summary,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** One in-process worker (--jobs JOBS) on `name` while `body` runs. */
async function withInProcessWorker<T>(
  url: string,
  name: string,
  body: () => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const running = runWorker({
    target: parseRedisUrl(url),
    queueName: name,
    engine: 'builtin',
    jobs: JOBS,
    signal: stop.signal,
    onEvent: (e) => {
      if (e.type === 'ready') ready();
    },
  });
  await isReady;
  try {
    return await body();
  } finally {
    stop.abort();
    await running;
  }
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const seconds = (xs: Timed[]) => xs.map((x) => (x.ms / 1000).toFixed(2)).join('/');

async function overhead(url: string, input: string): Promise<void> {
  const queued = async () => {
    const name = freshName();
    return withInProcessWorker(url, name, () => collect(url, name, input));
  };
  // Warm-up, not counted: code loaded (BullMQ, ioredis, the analysis), dumps in the file cache.
  await local(input);
  await queued();
  const localRuns: Timed[] = [];
  const queueRuns: Timed[] = [];
  const loadBefore = load();
  for (let r = 0; r < ROUNDS; r++) {
    // Alternated, each first in turn, so a load change hits both sides alike.
    if (r % 2 === 0) {
      localRuns.push(await local(input));
      queueRuns.push(await queued());
    } else {
      queueRuns.push(await queued());
      localRuns.push(await local(input));
    }
  }
  const pairs = localRuns.map((l, i) => (queueRuns[i]!.ms - l.ms) / DUMPS);
  const perDump = median(pairs);
  const cpu = (xs: Timed[], redis: boolean) =>
    median(xs.map((x) => (x.cpuMs + (redis ? x.redisCpuMs : 0)) / DUMPS));
  const redisPart = median(queueRuns.map((x) => x.redisCpuMs / DUMPS));
  console.log(
    `overhead: ${DUMPS} dumps, --jobs ${JOBS}, ${ROUNDS} alternating pairs (load ${loadBefore} before, ${load()} after): local ${seconds(localRuns)} s, queue (1 in-process worker + collector) ${seconds(queueRuns)} s`,
  );
  console.log(
    `overhead: per dump through the queue ${perDump.toFixed(2)} ms median of pairs (min ${Math.min(...pairs).toFixed(2)}, max ${Math.max(...pairs).toFixed(2)}; goal <= 2 ms) ${perDump <= 2 ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `overhead: CPU per dump local ${cpu(localRuns, false).toFixed(2)} ms, queue ${cpu(queueRuns, true).toFixed(2)} ms (of which redis-server ${redisPart.toFixed(2)} ms): +${(cpu(queueRuns, true) - cpu(localRuns, false)).toFixed(2)} ms CPU per dump`,
  );
}

function startWorkers(url: string, name: string, count: number): Promise<ChildProcess[]> {
  const workers = Array.from({ length: count }, () =>
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        CLI,
        'worker',
        '--queue',
        url,
        '--queue-name',
        name,
        '--engine',
        'builtin',
        '--jobs',
        String(JOBS),
        '--json',
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    ),
  );
  return Promise.all(
    workers.map(
      (w) =>
        new Promise<ChildProcess>((resolve) => {
          let text = '';
          const onData = (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes('"type":"ready"')) {
              w.stdout?.off('data', onData);
              w.stdout?.resume();
              resolve(w);
            }
          };
          w.stdout?.on('data', onData);
        }),
    ),
  );
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.once('exit', () => resolve());
          w.kill('SIGTERM');
        }),
    ),
  );
}

async function throughput(
  url: string,
  input: string,
  count: number,
  dumps: number,
  rounds: number,
): Promise<number> {
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const name = freshName();
    const workers = await startWorkers(url, name, count);
    try {
      rates.push(dumps / ((await collect(url, name, input)).ms / 1000));
    } finally {
      await stopWorkers(workers);
    }
  }
  console.log(
    `throughput: ${count} worker${count === 1 ? '' : 's'} (--jobs ${JOBS} each), ${dumps} dumps: ${rates.map((x) => x.toFixed(0)).join(' / ')} dumps/s (median ${median(rates).toFixed(0)}; load ${load()})`,
  );
  return median(rates);
}

const redis = await RedisServer.start();
redisProcess.pid = redis.pid;
const input = variants(DUMPS);
try {
  await overhead(redis.url, input);
  const rates = new Map<number, number>();
  for (const count of WORKER_COUNTS)
    rates.set(count, await throughput(redis.url, input, count, DUMPS, ROUNDS));
  const base = rates.get(WORKER_COUNTS[0]!) ?? 1;
  console.log(
    `scaling: ${[...rates].map(([k, v]) => `${k} → ${(v / base).toFixed(2)}x`).join(', ')}`,
  );
  if (BIG > 0) {
    const best = [...rates].sort((a, b) => b[1] - a[1])[0]![0];
    const big = variants(BIG);
    try {
      const rate = await throughput(redis.url, big, best, BIG, 1);
      console.log(
        `big: ${BIG} dumps through ${best} builtin workers in ${(BIG / rate).toFixed(1)} s (${rate.toFixed(0)} dumps/s); collector peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (this process, all phases); load ${load()}`,
      );
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(input, { recursive: true, force: true });
  await redis.stop();
  rmSync(redis.dir, { recursive: true, force: true });
}
