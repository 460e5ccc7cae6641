// One worker serves several queues (its engine's and the engine sets holding it) on one --jobs
// budget, with real parts: a real redis-server, a real `cdb-harness worker --engine builtin`, two
// real collectors filling two of its queues at once. It never runs more dumps at once than
// --jobs, and it serves both queues (neither starves while the other has work).
import { expect } from 'chai';
import { runCli } from '../helpers/cli.js';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import {
  dumpBatch,
  mostAtOnce,
  readRecords,
  startWorker,
  type WorkerProcess,
} from './queue-helpers.js';

describe('a worker on several queues keeps one --jobs budget (real Redis)', function () {
  this.timeout(240_000);
  let redis: RedisServer | undefined;
  let worker: WorkerProcess | undefined;

  before(function () {
    if (!redisAvailable()) this.skip();
  });
  afterEach(async () => {
    await worker?.stop('SIGKILL');
    worker = undefined;
    await redis?.stop();
    redis = undefined;
  });

  for (const jobs of [1, 3]) {
    it(`runs at most --jobs ${jobs} dumps at once across its queues, and serves them in turn`, async () => {
      redis = await RedisServer.start();
      const url = redis.url;
      const own = dumpBatch(80);
      // Other content than `own` beyond the first 80 (a job per content and options anyway).
      const anyInput = dumpBatch(160);
      const [ownOut, anyOut] = [makeTempDir('queue-own-out'), makeTempDir('queue-any-out')];
      // Both queues full before the worker starts: each collector has said nobody serves it.
      let waiting = 0;
      const startWhenBothWait = (soFar: string) => {
        if (/no worker is taking/.test(soFar) && ++waiting === 2) {
          worker = startWorker(['--queue', url, '--engine', 'builtin', '--jobs', String(jobs)]);
        }
      };
      const once = () => {
        let said = false;
        return (soFar: string) => {
          if (!said && /no worker is taking/.test(soFar)) {
            said = true;
            startWhenBothWait(soFar);
          }
        };
      };
      const runs = await Promise.all([
        runCli(['analyze', own, '--queue', url, '--engine', 'builtin', '--out', ownOut], {
          onStderr: once(),
        }),
        runCli(['analyze', anyInput, '--queue', url, '--engine', 'any', '--out', anyOut], {
          onStderr: once(),
        }),
      ]);
      for (const run of runs) expect(run.code, run.stderr).to.equal(0);
      expect(readRecords(ownOut)).to.have.length(80);
      expect(readRecords(anyOut)).to.have.length(160);
      const done = worker!.done();
      expect(done).to.have.length(240);
      expect(new Set(done.map((l) => l.jobId)).size).to.equal(240);
      expect(mostAtOnce(worker!)).to.be.within(1, jobs);
      // Served in turn: the first 80 finished hold dumps of both queues (one busy queue keeping
      // the slots to itself would finish all its own first).
      const firstFolders = new Set(done.slice(0, 80).map((l) => l.location?.startsWith(own)));
      expect([...firstFolders].sort()).to.deep.equal([false, true]);
    });
  }
});
