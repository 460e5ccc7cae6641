// The collector and Redis going away, with real parts: a real redis-server (append-only where it
// is restarted), real builtin workers, the real collector (`analyze --queue`). Nothing may be lost
// or recorded twice when Redis restarts mid-batch or the collector is killed and resumed; a queue
// nobody serves is said in the progress; a bad Redis URL is a clear error with a documented code.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { freePort, RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { AnalyzeSummary } from '../../src/report/analyze/analyze-record.js';
import {
  allReady,
  dumpBatch,
  readRecords,
  startWorker,
  type WorkerProcess,
} from './queue-helpers.js';

const BATCH = 300;

/** The `done/total` of the last progress line in `stderr` (0 before the first). */
function progressDone(stderr: string): number {
  // Sample progress line: "[####----------------]  60/300  ok 60  failed 0  31.2/s  ETA 0:07"
  const all = [...stderr.matchAll(/\]\s+(\d+)\/\d+\s+ok/g)];
  return Number(all.at(-1)?.[1] ?? 0);
}

describe('analyze --queue when Redis or the collector stops (real Redis)', function () {
  this.timeout(240_000);
  let redis: RedisServer | undefined;
  let workers: WorkerProcess[] = [];

  beforeEach(function () {
    if (!redisAvailable()) this.skip();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    workers = [];
    await redis?.stop();
    redis = undefined;
  });

  const builtinWorkers = async (count: number) => {
    workers = Array.from({ length: count }, () =>
      startWorker([
        '--queue',
        redis!.url,
        '--engine',
        'builtin',
        '--jobs',
        '1',
        '--lock-duration',
        '3s',
      ]),
    );
    await allReady(workers);
  };

  it('loses nothing when Redis restarts mid-batch (append-only); everyone reconnects', async () => {
    redis = await RedisServer.start({ appendOnly: true });
    await builtinWorkers(2);
    const input = dumpBatch(BATCH);
    const out = makeTempDir('queue-redis-out');
    let restart: Promise<void> | undefined;
    const run = await runCli(
      ['analyze', input, '--queue', redis.url, '--engine', 'builtin', '--out', out],
      {
        onStderr: (soFar) => {
          if (restart === undefined && progressDone(soFar) >= 30) restart = redis!.restart(1_500);
        },
      },
    );
    await restart;
    expect(restart, 'Redis was restarted during the batch').to.not.equal(undefined);
    expect(run.code, run.stderr).to.equal(0);
    const records = readRecords(out);
    expect(records).to.have.length(BATCH);
    expect(new Set(records.map((r) => r.file)).size).to.equal(BATCH);
    expect(records.every((r) => r.ok)).to.equal(true);
    // Both workers lived through it and took jobs after Redis came back.
    const restartedAt = workers.map((w) => w.lines.findIndex((l) => l.type === 'redis'));
    expect(
      restartedAt.every((i) => i >= 0),
      'each worker saw the connection drop',
    ).to.equal(true);
    for (const [i, w] of workers.entries()) {
      expect(w.lines.slice(restartedAt[i]).some((l) => l.type === 'job-done')).to.equal(true);
    }
  });

  it('keeps every result for a collector killed mid-batch and resumed, none counted twice', async () => {
    redis = await RedisServer.start();
    await builtinWorkers(2);
    const input = dumpBatch(BATCH);
    const out = makeTempDir('queue-resume-out');
    const args = ['analyze', input, '--queue', redis.url, '--engine', 'builtin', '--out', out];
    const first = await runCli(args, {
      onStderr: (soFar, child) => {
        if (progressDone(soFar) >= 30) child.kill('SIGKILL');
      },
    });
    expect(first.code, first.stderr).to.equal(null);
    const partial = readRecords(out).length;
    expect(partial).to.be.within(30, BATCH - 1);
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).to.equal(0);
    const records = readRecords(out);
    expect(records).to.have.length(BATCH);
    expect(new Set(records.map((r) => r.file)).size).to.equal(BATCH);
    expect(second.stderr).to.include(`skipped: ${partial} already recorded (--resume)`);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as AnalyzeSummary;
    expect(summary).to.include({ dumps: BATCH, ok: BATCH });
    // The workers analysed each dump once: the resumed collector found results waiting.
    const done = workers.flatMap((w) => w.done());
    expect(new Set(done.map((d) => d.jobId)).size).to.equal(BATCH);
  });

  it('says when no worker serves the engine a job needs, and a builtin worker never takes it', async () => {
    redis = await RedisServer.start();
    await builtinWorkers(1);
    const input = dumpBatch(1);
    const out = makeTempDir('queue-routing-out');
    let stopped = false;
    const run = await runCli(
      ['analyze', input, '--queue', redis.url, '--engine', 'cdb', '--out', out],
      {
        onStderr: (soFar, child) => {
          // Once: a second Ctrl-C exits at once, without the summary.
          if (!stopped && /no worker is taking cdb jobs/.test(soFar)) {
            stopped = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(run.stderr).to.match(
      /queue: no worker is taking cdb jobs from queue "cdb-harness-cdb": 1 dump waiting \(start one: cdb-harness worker --queue redis:\/\/127\.0\.0\.1:\d+ --engine cdb\)/,
    );
    expect(run.code, run.stderr).to.equal(130);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as AnalyzeSummary;
    expect(summary.options?.queue?.waiting).to.equal(1);
    expect(workers[0]!.lines.filter((l) => l.type === 'job-start')).to.have.length(0);
  });

  it('fails clearly on an unreachable or malformed Redis URL (exit 1 and 2)', async () => {
    const input = dumpBatch(1);
    const port = await freePort();
    const out = makeTempDir('queue-bad-url');
    const refused = await runCli([
      'analyze',
      input,
      '--queue',
      `redis://127.0.0.1:${port}`,
      '--engine',
      'builtin',
      '--out',
      out,
    ]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(
      new RegExp(
        `cdb-harness: cannot use the queue at redis://127\\.0\\.0\\.1:${port}/?: .*ECONNREFUSED`,
      ),
    );
    const worker = await runCli([
      'worker',
      '--queue',
      `redis://127.0.0.1:${port}`,
      '--engine',
      'builtin',
    ]);
    expect(worker.code).to.equal(1);
    expect(worker.stderr).to.match(/cannot use the queue at/);
    const malformed = await runCli([
      'analyze',
      input,
      '--queue',
      'http://127.0.0.1:6379',
      '--engine',
      'builtin',
    ]);
    expect(malformed.code).to.equal(2);
    expect(malformed.stderr).to.match(/--queue wants a redis:\/\/ or rediss:\/\/ URL/);
    // Engine sets are for the queue; a local run uses one engine.
    const local = await runCli(['analyze', input, '--engine', 'cdb,builtin', '--out', out]);
    expect(local.code).to.equal(2);
    expect(local.stderr).to.match(/--engine cdb,builtin goes with --queue/);
    const unknown = await runCli([
      'analyze',
      input,
      '--queue',
      'redis://127.0.0.1:1',
      '--engine',
      'gdb',
    ]);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/Allowed: auto, cdb, winedbg, dotnet-dump, builtin, any/);
    const triage = await runCli([
      ...['analyze', input, '--queue', 'redis://127.0.0.1:1', '--engine', 'dotnet-dump'],
    ]);
    expect(triage.code).to.equal(2);
    expect(triage.stderr).to.match(
      /--engine with --queue wants any, or one or more of cdb, winedbg, builtin/,
    );
  });
});
