// Hostile dumps through the queue (issue 30, item 1): a 1.9 MB dump whose 16,384 module names
// all point at one 64 KB string once gave a 480 MB record through the queue (the worker skipped
// the record bound), a 1 GB Redis and a collector that died. With real parts (redis-server, a
// real worker, the real collector) the queue's records equal a local run's, every line is within
// the record bound, and every result Redis holds is within the queue's result bound.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { runCli } from '../helpers/cli.js';
import { repeatedNameDump } from '../helpers/hostile-dumps.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { MAX_RESULT_BYTES } from '../../src/queue/job-result.js';
import { MAX_RECORD_BYTES } from '../../src/workflows/analyze/record-bounds.js';
import {
  dumpBatch,
  recordDifferences,
  recordLines,
  queueRigPerTest,
  startRigRedis,
  startWorker,
} from './queue-helpers.js';

describe('hostile dumps through the queue (real Redis)', function () {
  this.timeout(240_000);
  const rig = queueRigPerTest();

  it('gives the records of a local run, each within the bound, each result in Redis within its own', async () => {
    const redis = await startRigRedis(rig);
    const input = dumpBatch(3);
    for (let i = 0; i < 3; i++) {
      writeFileSync(join(input, `hostile${i}.dmp`), repeatedNameDump(16_384, 32_767, i));
    }
    const local = makeTempDir('hostile-local');
    const run = await runCli(['analyze', input, '--engine', 'builtin', '--out', local]);
    expect(run.code, run.stderr).to.be.oneOf([0, 4]);

    const worker = startWorker([
      '--queue',
      redis.url,
      '--queue-name',
      'hostile',
      '--engine',
      'builtin',
    ]);
    rig.worker = worker;
    await worker.waitFor((l) => l.type === 'ready', 'ready line');
    const queued = makeTempDir('hostile-queued');
    const collect = await runCli(
      [
        ...['analyze', input, '--queue', redis.url, '--queue-name', 'hostile'],
        ...['--engine', 'builtin', '--out', queued],
      ],
      { timeoutMs: 200_000 },
    );
    expect(collect.code, collect.stderr).to.equal(run.code);
    for (const line of recordLines(queued))
      expect(Buffer.byteLength(line)).to.be.at.most(MAX_RECORD_BYTES);
    expect(recordDifferences(queued, local)).to.deep.equal([]);

    // What Redis keeps of each job's result (the job hash; the events stream holds the same).
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('bull:hostile-builtin:*');
      const jobKeys = keys.filter((k) => /:[0-9a-f]{64}\.[0-9a-f]{16}$/.test(k));
      expect(jobKeys).to.have.length(6);
      for (const key of jobKeys) {
        const value = (await client.hget(key, 'returnvalue')) ?? '';
        expect(value.length, key).to.be.at.most(MAX_RESULT_BYTES + 1024);
      }
    } finally {
      client.disconnect();
    }
  });
});
