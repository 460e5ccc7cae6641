// Hostile dumps through the queue (issue 30, item 1): before the worker bounded its records, a
// 1.9 MB dump whose 16,384 module names point at one 64 KB string gave a 480 MB record, a 4.96 GB
// collector and a 1 GB Redis, and five of them killed the collector. Goals, for any batch:
// collector at most 300 MB, every record at most 256 KB, Redis at most 64 MB per 1,000 jobs.
//   node --import tsx bench/queue-hostile.ts [--dumps 1000] [--hostile 40] [--workers 2]
// The batch: --hostile hostile dumps (repeated-name module lists, a module list claiming 40,000
// modules past the end of the file, module lists cut off with their names), the rest variants of
// the example dumps, each its own content. Real redis-server, --workers real worker processes
// (builtin, --jobs 2), the collector a real CLI process under GNU time (its peak RSS). Printed:
// the collector's peak RSS, the largest record line, Redis's used_memory at the end and its peak,
// per 1,000 jobs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  cutReferencesDump,
  manyModulesDump,
  repeatedNameDump,
} from '../test/helpers/hostile-dumps.js';
import { RedisServer } from '../test/helpers/redis-server.js';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

const DUMPS = Number(option('--dumps', '1000'));
const HOSTILE = Number(option('--hostile', '40'));
const WORKERS = Number(option('--workers', '2'));
const CLI = join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts');
const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

const root = mkdtempSync(join(tmpdir(), 'cdbh-bench-queue-hostile-'));
const input = join(root, 'in');
spawnSync('mkdir', ['-p', input]);
const sources = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.dmp'))
  .map((f) => readFileSync(join(EXAMPLES, f)));
for (let i = 0; i < DUMPS - HOSTILE; i++) {
  const bytes = Buffer.from(sources[i % sources.length]!);
  // MINIDUMP_HEADER.TimeDateStamp (offset 20): another content, the same crash.
  bytes.writeUInt32LE((bytes.readUInt32LE(20) + i) >>> 0, 20);
  writeFileSync(join(input, `v${i}.dmp`), bytes);
}
for (let i = 0; i < HOSTILE; i++) {
  const kind = i % 3;
  const bytes =
    kind === 0
      ? repeatedNameDump(16_384, 32_767, i)
      : kind === 1
        ? manyModulesDump(40_000 + i)
        : cutReferencesDump(2_000 + i).cut;
  writeFileSync(join(input, `hostile${i}.dmp`), bytes);
}

const redis = await RedisServer.start();
const workers = Array.from({ length: WORKERS }, () =>
  spawn(
    process.execPath,
    [
      ...['--import', 'tsx', CLI, 'worker', '--queue', redis.url, '--queue-name', 'bench'],
      ...['--engine', 'builtin', '--jobs', '2'],
    ],
    { cwd: REPO_ROOT, stdio: 'ignore' },
  ),
);
const client = new Redis(redis.url);
let redisPeak = 0;
const sampler = setInterval(() => {
  void client.info('memory').then((text) => {
    // Sample: "used_memory:1048576"
    const used = Number(/^used_memory:(\d+)/m.exec(text)?.[1] ?? 0);
    redisPeak = Math.max(redisPeak, used);
  });
}, 500);
try {
  const out = join(root, 'out');
  const started = performance.now();
  const collector = spawnSync(
    '/usr/bin/time',
    [
      ...['-f', 'maxrss_kb=%M', process.execPath, '--import', 'tsx', CLI, 'analyze', input],
      ...['--queue', redis.url, '--queue-name', 'bench', '--engine', 'builtin', '--out', out],
      '--no-progress',
    ],
    { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  const seconds = (performance.now() - started) / 1000;
  const rssKb = Number(/maxrss_kb=(\d+)/.exec(collector.stderr)?.[1] ?? Number.NaN);
  const lines = readFileSync(join(out, 'records.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const largest = Math.max(...lines.map((l) => Buffer.byteLength(l)));
  const limited = lines.filter((l) => l.includes('"OUTPUT_LIMIT"')).length;
  const info = await client.info('memory');
  const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
  const peak = Math.max(redisPeak, Number(/^used_memory_peak:(\d+)/m.exec(info)?.[1] ?? 0));
  const perThousand = (bytes: number) => ((bytes / 2 ** 20) * 1000) / DUMPS;
  console.log(
    `queue, ${DUMPS} dumps (${HOSTILE} hostile), ${WORKERS} workers: ${lines.length} records in ${seconds.toFixed(0)} s (collector exit ${collector.status})`,
  );
  console.log(
    `collector peak RSS ${(rssKb / 1024).toFixed(0)} MB (goal <= 300): ${rssKb / 1024 <= 300 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `largest record ${largest} bytes (goal <= 262144): ${largest <= 262_144 ? 'met' : 'NOT met'}; ${limited} OUTPUT_LIMIT records`,
  );
  console.log(
    `Redis used_memory ${perThousand(used).toFixed(1)} MB per 1,000 jobs at the end, peak ${perThousand(peak).toFixed(1)} MB (goal <= 64): ${perThousand(peak) <= 64 ? 'met' : 'NOT met'}`,
  );
} finally {
  clearInterval(sampler);
  client.disconnect();
  for (const worker of workers) worker.kill('SIGKILL');
  await redis.stop();
  rmSync(root, { recursive: true, force: true });
}
