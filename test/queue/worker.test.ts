// Workers of different engines on one Redis, with real parts: a real redis-server, real
// `cdb-harness worker` processes (builtin, cdb running the cdb emulator with real recorded
// replies, winedbg that is never given a job), the real collector. A job that any engine may take
// goes to whichever worker is free and its record names the engine that analysed it; a job for a
// list of engines is never taken by a worker outside the list, and while nobody serves it the
// collector's progress says so.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { AnalyzeSummary } from '../../src/report/analyze/analyze-record.js';
import {
  allReady,
  cdbInputs,
  dumpBatch,
  fakeCdb,
  readRecords,
  startWorker,
  type WorkerProcess,
} from './queue-helpers.js';

describe('workers of several engines on one queue (real Redis)', function () {
  this.timeout(240_000);
  let redis: RedisServer | undefined;
  let workers: WorkerProcess[] = [];

  beforeEach(async function () {
    if (!redisAvailable()) this.skip();
    redis = await RedisServer.start();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    workers = [];
    await redis?.stop();
    redis = undefined;
  });

  it('gives an any-engine job to cdb and builtin workers alike; the record names who did it', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `d${i}.dmp`);
    const input = cdbInputs(Object.fromEntries(names.map((n) => [n, 'analyze-av.json'])));
    const cdb = startWorker([
      ...['--queue', redis!.url, '--queue-name', 'mixed', '--engine', 'cdb'],
      ...['--debugger', fakeCdb(), '--jobs', '1'],
    ]);
    const builtin = startWorker([
      ...['--queue', redis!.url, '--queue-name', 'mixed', '--engine', 'builtin', '--jobs', '1'],
    ]);
    workers = [cdb, builtin];
    await allReady(workers);
    expect(cdb.lines.find((l) => l.type === 'ready')?.queues).to.deep.equal([
      'mixed-cdb',
      'mixed-cdb+winedbg',
      'mixed-cdb+builtin',
      'mixed-any',
    ]);
    const out = makeTempDir('queue-any-out');
    // No --engine: any worker may take the dumps.
    const run = await runCli(
      ['analyze', input, '--queue', redis!.url, '--queue-name', 'mixed', '--out', out],
      { timeoutMs: 200_000 },
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(
      /queue: queue "mixed-any" at redis:\/\/127\.0\.0\.1:\d+ \(Redis [\d.]+\): any engine \(cdb, winedbg, builtin\)/,
    );
    const records = readRecords(out);
    expect(records.map((r) => r.file.split('/').pop()).sort()).to.deep.equal([...names].sort());
    // Each dump analysed once in the cluster, its record's engine the engine of the worker that did.
    const doneBy = new Map<string, string>();
    for (const [engine, worker] of [
      ['cdb', cdb],
      ['builtin', builtin],
    ] as const) {
      for (const line of worker.done()) {
        expect(doneBy.has(line.location!), line.location).to.equal(false);
        doneBy.set(line.location!, engine);
      }
    }
    expect(doneBy.size).to.equal(names.length);
    for (const record of records)
      expect(record.engine, record.file).to.equal(doneBy.get(record.file));
    expect(cdb.done().length, 'the cdb worker took some').to.be.greaterThan(0);
    expect(builtin.done().length, 'the builtin worker took some').to.be.greaterThan(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as AnalyzeSummary;
    expect(summary.options?.queue?.engines).to.deep.equal(['cdb', 'winedbg', 'builtin']);
    expect([...summary.engines].sort()).to.deep.equal(['builtin', 'cdb']);
  });

  it('never gives a cdb,builtin job to a winedbg worker, and says nobody serves it', async () => {
    const winedbg = startWorker([
      ...['--queue', redis!.url, '--queue-name', 'lists', '--engine', 'winedbg', '--jobs', '2'],
    ]);
    workers = [winedbg];
    await allReady(workers);
    const input = dumpBatch(3);
    const out = makeTempDir('queue-list-out');
    let started: WorkerProcess | undefined;
    const run = await runCli(
      [
        ...['analyze', input, '--queue', redis!.url, '--queue-name', 'lists'],
        ...['--engine', 'builtin,cdb', '--out', out],
      ],
      {
        timeoutMs: 200_000,
        onStderr: (soFar) => {
          // Once nobody is said to serve the jobs, a builtin worker comes and takes them.
          if (started === undefined && /no worker is taking/.test(soFar)) {
            started = startWorker([
              ...['--queue', redis!.url, '--queue-name', 'lists', '--engine', 'builtin'],
            ]);
            workers.push(started);
          }
        },
      },
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(
      /queue: no worker is taking cdb\/builtin jobs from queue "lists-cdb\+builtin": 3 dumps waiting \(start one: cdb-harness worker --queue redis:\/\/127\.0\.0\.1:\d+ --engine cdb\|builtin --queue-name lists\)/,
    );
    // The worker that comes is said when the collector polls before it has taken every job; a
    // fast worker can finish all three first, so the line is optional, but never before the first.
    const came = run.stderr.indexOf('1 worker on queue "lists-cdb+builtin"');
    if (came >= 0) expect(came).to.be.greaterThan(run.stderr.indexOf('no worker is taking'));
    expect(winedbg.lines.filter((l) => l.type === 'job-start')).to.have.length(0);
    expect(started?.done()).to.have.length(3);
    const records = readRecords(out);
    expect(records).to.have.length(3);
    for (const record of records) expect(record).to.include({ ok: true, engine: 'builtin' });
  });
});
