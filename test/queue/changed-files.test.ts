// A queued file whose content changes before a worker reads it (issue 30, item 2). Enqueued as
// an access violation, replaced by a CLR exception, then a worker starts: the record once carried
// the old sha256 with the new content's analysis, and Redis answered the genuine access-violation
// dump, under any name, with that record for 7 days. Now the worker checks the content against
// the enqueued sha256 and fails the job as CHANGED; the collector hashes the file again and
// enqueues what it holds now, so the record is the one a local run gives for the file as it is,
// and the access-violation dump is still answered with its own record. Real redis-server, real
// worker, real collector.
import { expect } from 'chai';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import {
  EXAMPLES,
  readRecords,
  recordDifferences,
  queueRigPerTest,
  startRigRedis,
  startWorker,
} from './queue-helpers.js';

describe('a queued file that changes before a worker reads it (real Redis)', function () {
  this.timeout(240_000);
  const rig = queueRigPerTest();

  it('gets the record of what the file holds when analysed, and the old content keeps its own', async () => {
    const redis = await startRigRedis(rig);
    const url = redis.url;
    const input = makeTempDir('changed-in');
    const file = join(input, 'x.dmp');
    copyFileSync(join(EXAMPLES, 'av-write-a.dmp'), file);
    const queued = makeTempDir('changed-queued');
    let swapped = false;
    const collect = await runCli(
      ['analyze', input, '--queue', url, '--engine', 'builtin', '--out', queued],
      {
        timeoutMs: 200_000,
        onStderr: (soFar) => {
          // Enqueued, no worker yet: the file changes, then a worker starts.
          if (!swapped && /no worker is taking/.test(soFar)) {
            swapped = true;
            copyFileSync(join(EXAMPLES, 'clr-raise.dmp'), file);
            rig.worker = startWorker(['--queue', url, '--engine', 'builtin']);
          }
        },
      },
    );
    expect(swapped, collect.stderr).to.equal(true);
    expect(collect.code, collect.stderr).to.equal(0);
    const [record] = readRecords(queued);
    expect(record?.exception?.code).to.equal('0xe0434352');
    // Exactly what a local run writes for the file as it is now.
    const local = makeTempDir('changed-local');
    const run = await runCli(['analyze', input, '--engine', 'builtin', '--out', local]);
    expect(run.code, run.stderr).to.equal(0);
    expect(recordDifferences(queued, local)).to.deep.equal([]);

    // The access-violation content, under another name, is answered with its own record.
    const genuine = makeTempDir('changed-genuine');
    copyFileSync(join(EXAMPLES, 'av-write-a.dmp'), join(genuine, 'y.dmp'));
    const again = makeTempDir('changed-again');
    const second = await runCli(
      ['analyze', genuine, '--queue', url, '--engine', 'builtin', '--out', again],
      { timeoutMs: 120_000 },
    );
    expect(second.code, second.stderr).to.equal(0);
    const [av] = readRecords(again);
    expect(av?.exception?.code).to.equal('0xc0000005');
    const avLocal = makeTempDir('changed-av-local');
    const third = await runCli(['analyze', genuine, '--engine', 'builtin', '--out', avLocal]);
    expect(third.code, third.stderr).to.equal(0);
    expect(recordDifferences(again, avLocal)).to.deep.equal([]);
  });
});
