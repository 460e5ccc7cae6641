// `analyze --queue --watch-folder`: an upload folder watched by the collector. Dumps already
// there are enqueued at once, dumps that appear later are enqueued once their size holds still,
// and Ctrl-C ends the collection with a summary of everything collected (exit 0: nothing waits).
// Real redis-server, real worker, real collector process.
import { expect } from 'chai';
import { appendFileSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import {
  dumpBatch,
  EXAMPLES,
  readRecords,
  startWorker,
  type WorkerProcess,
} from './queue-helpers.js';

describe('analyze --queue --watch-folder (real Redis)', function () {
  this.timeout(180_000);
  let redis: RedisServer | undefined;
  let worker: WorkerProcess | undefined;

  before(async function () {
    if (!redisAvailable()) this.skip();
    redis = await RedisServer.start();
  });
  after(async () => {
    await worker?.stop('SIGKILL');
    await redis?.stop();
  });

  it('enqueues dumps that arrive while it runs, and Ctrl-C ends it with their records', async () => {
    worker = startWorker(['--queue', redis!.url, '--engine', 'builtin']);
    await worker.waitFor((l) => l.type === 'ready', 'ready line');
    const source = dumpBatch(5);
    const names = readdirSync(source).sort();
    const uploads = makeTempDir('queue-uploads');
    for (const name of names.slice(0, 2)) copyFileSync(join(source, name), join(uploads, name));
    const out = makeTempDir('queue-watch-out');
    let added = false;
    let stopped = false;
    const run = await runCli(
      [
        'analyze',
        uploads,
        '--queue',
        redis!.url,
        '--engine',
        'builtin',
        '--watch-folder',
        '--out',
        out,
      ],
      {
        onStderr: (soFar, child) => {
          if (!added && /\b2\/2 +ok 2/.test(soFar)) {
            added = true;
            for (const name of names.slice(2))
              copyFileSync(join(source, name), join(uploads, name));
          }
          if (!stopped && /\b5\/5 +ok 5/.test(soFar)) {
            stopped = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(added && stopped, run.stderr).to.equal(true);
    expect(run.code, run.stderr).to.equal(0);
    const records = readRecords(out);
    expect(records.map((r) => r.file.split('/').pop()).sort()).to.deep.equal(names);
    expect(records.every((r) => r.ok)).to.equal(true);
  });

  it('takes again an upload that paused and went on: the finished file is analysed, its record supersedes', async () => {
    worker ??= startWorker(['--queue', redis!.url, '--engine', 'builtin']);
    await worker.waitFor((l) => l.type === 'ready', 'ready line');
    const whole = readFileSync(join(EXAMPLES, 'av-write-a.dmp'));
    const uploads = makeTempDir('queue-paused-uploads');
    const file = join(uploads, 'paused.dmp');
    // The first part arrives, then the upload stalls for longer than the quiet period.
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    const out = makeTempDir('queue-paused-out');
    let resumed = false;
    let stopped = false;
    const run = await runCli(
      [
        ...['analyze', uploads, '--queue', redis!.url, '--engine', 'builtin'],
        ...['--watch-folder', '--out', out],
      ],
      {
        onStderr: (soFar, child) => {
          if (!resumed && /\b1\/1 +ok 1 +failed 0/.test(soFar)) {
            resumed = true;
            appendFileSync(file, whole.subarray(Math.floor(whole.length / 2)));
          }
          if (!stopped && /\b2\/2 +ok 2/.test(soFar)) {
            stopped = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(resumed && stopped, run.stderr).to.equal(true);
    expect(run.code, run.stderr).to.equal(0);
    const records = readRecords(out);
    // A dump cut short gets a partial record marked truncated (issue 29), then the whole file's.
    expect(records.map((r) => r.ok)).to.deep.equal([true, true]);
    expect(records[0]?.truncated).to.equal(true);
    expect(records[1]?.truncated).to.not.equal(true);
    // The summary and report count the file once: its last record.
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      dumps: number;
      ok: number;
    };
    expect(summary).to.include({ dumps: 1, ok: 1 });
  });
});
