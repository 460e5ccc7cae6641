// Failures that belong to a worker, not to the dump (issue 30, item 3): a worker that cannot see
// the shared folder once recorded `IO … ENOENT` as the dump's result, kept in Redis for 7 days, so
// a later collection with healthy workers returned the same failure with 0 job starts. Now the
// job goes back to the queue; a collection with only such workers ends with a WORKER_FAULT record
// that is not kept, and the next collection with a healthy worker analyses the dump. Real
// redis-server; the blind worker is a real worker with an empty tmpfs over the input folder in
// its own mount namespace (unshare).
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { runCli } from '../helpers/cli.js';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { JOB_FORMAT } from '../../src/queue/queue-job.js';
import { failureKind } from '../../src/queue/job-faults.js';
import {
  canBlind,
  dumpBatch,
  readRecords,
  recordDifferences,
  startWorker,
  type WorkerProcess,
} from './queue-helpers.js';

describe('failures that belong to a worker (real Redis)', function () {
  this.timeout(240_000);
  let redis: RedisServer | undefined;
  let workers: WorkerProcess[] = [];

  before(function () {
    if (!redisAvailable()) this.skip();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    workers = [];
    await redis?.stop();
    redis = undefined;
  });

  it('does not keep a blind worker’s failure: the next collection with a healthy worker analyses the dumps', async function () {
    if (!canBlind()) this.skip();
    redis = await RedisServer.start();
    const input = dumpBatch(2);
    const args = ['--queue', redis.url, '--queue-name', 'blind', '--engine', 'builtin'];
    const blind = startWorker(args, process.env, input);
    workers = [blind];
    await blind.waitFor((l) => l.type === 'ready', 'ready line');
    const collect = (out: string) =>
      runCli(['analyze', input, ...args, '--out', out], { timeoutMs: 200_000 });
    const first = makeTempDir('blind-first');
    const run1 = await collect(first);
    expect(run1.code, run1.stderr).to.equal(1);
    expect(run1.stderr).to.match(/back to the queue \(not the dump's fault\): worker fault:/);
    for (const record of readRecords(first)) {
      expect(record.error?.code).to.equal('WORKER_FAULT');
      expect(record.error?.message).to.match(
        /no worker could run this job \(3 tries\): cannot open .*v0000\d\.dmp.*\[worker builtin-.*, cdb-harness .*, engine builtin, job format 1\]/,
      );
    }
    await blind.stop('SIGTERM');

    const healthy = startWorker(args);
    workers.push(healthy);
    await healthy.waitFor((l) => l.type === 'ready', 'ready line');
    const second = makeTempDir('blind-second');
    const run2 = await collect(second);
    expect(run2.code, run2.stderr).to.equal(0);
    expect(healthy.lines.filter((l) => l.type === 'job-start')).to.have.length(2);
    const local = makeTempDir('blind-local');
    const run3 = await runCli(['analyze', input, '--engine', 'builtin', '--out', local]);
    expect(run3.code, run3.stderr).to.equal(0);
    expect(recordDifferences(second, local)).to.deep.equal([]);
  });

  it('fails a job of another format as the worker’s fault, not the dump’s', async () => {
    redis = await RedisServer.start();
    const worker = startWorker([
      '--queue',
      redis.url,
      '--queue-name',
      'format',
      '--engine',
      'builtin',
    ]);
    workers = [worker];
    await worker.waitFor((l) => l.type === 'ready', 'ready line');
    const queue = new Queue('format-builtin', {
      connection: { host: '127.0.0.1', port: redis.port },
    });
    try {
      const job = await queue.add(
        'analyze',
        { format: JOB_FORMAT + 1, location: '/nowhere.dmp' },
        { jobId: 'next-format', attempts: 2 },
      );
      const failed = await worker.waitFor((l) => l.type === 'job-failed', 'job-failed line');
      expect(failed.jobId).to.equal('next-format');
      const reason = (await queue.getJob(job.id!))?.failedReason;
      expect(failureKind(reason)).to.equal('worker');
      // Not retried by BullMQ on the same worker: the collector gives it back (collector.ts).
      expect((await queue.getJob(job.id!))?.attemptsMade).to.equal(1);
    } finally {
      await queue.close();
    }
  });
});
