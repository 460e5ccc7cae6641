// Benchmark: `analyze --queue` (BullMQ on a real redis-server) against a local `analyze`.
//   node --import tsx bench/queue-throughput.ts [--dumps 2000] [--rounds 3] [--workers 1,2,4] [--big 10000] [--jobs 8]
// Dumps are variants of the example dumps (the header's TimeDateStamp changed: each its own
// content, so each its own job), builtin engine.
// 1. Per-job overhead: the same dumps analysed locally (analyzeDumps, --jobs J) and through the
//    queue by one in-process worker (--jobs J) with the collector in the same process, rounds
//    alternated; overhead = (queue − local) / dumps, medians. Goal ≤ 2 ms per dump.
// 2. Throughput with 1, 2 and 4 worker processes (`cdb-harness worker --jobs 2` each) and the
//    collector: dumps/s, the median of the rounds.
// 3. The builtin workers (the best count of 2.) over `--big` dumps: dumps/s and the collector's
//    peak RSS.
// Each run uses a fresh queue name, so no result of an earlier run is reused.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeThroughQueue } from '../src/queue/queue-analyze.js';
import { parseRedisUrl } from '../src/queue/redis-url.js';
import { runWorker } from '../src/queue/worker.js';
import { analyzeDumps } from '../src/workflows/analyze/analyze.js';
import { RedisServer } from '../test/helpers/redis-server.js';
import { REPO_ROOT } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
};
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

async function collect(url: string, name: string, input: string): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-queue-out-'));
  try {
    const t = performance.now();
    const result = await analyzeThroughQueue({
      inputs: [input],
      outDir: out,
      target: parseRedisUrl(url),
      queueName: name,
      engines: ['builtin'],
      pollMs: 500,
    });
    const ms = performance.now() - t;
    if (result.summary.ok !== result.summary.dumps)
      throw new Error(`${result.summary.failed} failed`);
    return ms;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function local(input: string): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-queue-out-'));
  try {
    const t = performance.now();
    const result = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      jobs: JOBS,
    });
    const ms = performance.now() - t;
    if (result.summary.ok !== result.summary.dumps)
      throw new Error(`${result.summary.failed} failed`);
    return ms;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** One in-process worker (jobs 2) on `name` while `body` runs. */
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

async function overhead(url: string, input: string): Promise<void> {
  const localMs: number[] = [];
  const queueMs: number[] = [];
  await local(input); // warm the file cache and the code
  for (let r = 0; r < ROUNDS; r++) {
    localMs.push(await local(input));
    const name = freshName();
    queueMs.push(await withInProcessWorker(url, name, () => collect(url, name, input)));
  }
  const perDump = (median(queueMs) - median(localMs)) / DUMPS;
  console.log(
    `overhead: ${DUMPS} dumps, local ${localMs.map((m) => (m / 1000).toFixed(2)).join('/')} s, queue (1 in-process worker), --jobs ${JOBS} ${queueMs.map((m) => (m / 1000).toFixed(2)).join('/')} s; median ${(median(localMs) / 1000).toFixed(2)} s vs ${(median(queueMs) / 1000).toFixed(2)} s = ${perDump.toFixed(2)} ms per dump through the queue (goal <= 2 ms) ${perDump <= 2 ? 'OK' : 'MISSED'}`,
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
      rates.push(dumps / ((await collect(url, name, input)) / 1000));
    } finally {
      await stopWorkers(workers);
    }
  }
  console.log(
    `throughput: ${count} worker${count === 1 ? '' : 's'} (--jobs ${JOBS} each), ${dumps} dumps: ${rates.map((x) => x.toFixed(0)).join(' / ')} dumps/s (median ${median(rates).toFixed(0)})`,
  );
  return median(rates);
}

const redis = await RedisServer.start();
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
        `big: ${BIG} dumps through ${best} builtin workers in ${(BIG / rate).toFixed(1)} s (${rate.toFixed(0)} dumps/s); collector peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (this process, all phases)`,
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
