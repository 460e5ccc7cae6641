// Workers that die, with real parts: a real redis-server, real `cdb-harness worker --engine cdb`
// processes running the cdb emulator (test/emulator, real transcript replies; the scenario is
// chosen per dump by test/analyze/emulator-per-dump.ts), `kill -9` on the worker that holds a
// given dump. BullMQ's stalled-job check must hand the job to another worker (nothing lost,
// nothing twice). Deaths are not the dump's result: a job whose workers died twice goes back to
// the queue once more (issue 30: two kills once quarantined a dump that analyses fine), four
// deaths quarantine it for that collection, and the next collection analyses it again.
import { expect } from 'chai';
import { runCli } from '../helpers/cli.js';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import {
  allReady,
  cdbInputs,
  fakeCdb,
  readRecords,
  startWorker,
  type WorkerLine,
  type WorkerProcess,
} from './queue-helpers.js';

const startsFile = (name: string) => (line: WorkerLine) =>
  line.type === 'job-start' && line.location?.endsWith(`/${name}`) === true;

/** Kills (-9) the first of `workers` that starts `name`; returns it. */
async function killWhoeverStarts(workers: WorkerProcess[], name: string): Promise<WorkerProcess> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const holder = workers.find((w) => w.lines.some(startsFile(name)));
    if (holder !== undefined) {
      await holder.stop('SIGKILL');
      return holder;
    }
    if (Date.now() > deadline) throw new Error(`no worker started ${name}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('queue workers that die (real Redis, cdb emulator)', function () {
  this.timeout(240_000);
  let redis: RedisServer | undefined;
  let workers: WorkerProcess[] = [];
  let cdb: string;

  before(async function () {
    if (!redisAvailable()) this.skip();
    redis = await RedisServer.start();
    cdb = fakeCdb();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    workers = [];
  });
  after(async () => redis?.stop());

  const worker = (name: string) =>
    startWorker([
      '--queue',
      redis!.url,
      '--queue-name',
      name,
      '--engine',
      'cdb',
      '--debugger',
      cdb,
      '--jobs',
      '1',
      '--lock-duration',
      '3s',
    ]);

  it('gives a killed worker’s dump to another worker; a crashing dump is quarantined once', async () => {
    const input = cdbInputs({
      'av1.dmp': 'analyze-av.json',
      'av2.dmp': 'analyze-av.json',
      'slow.dmp': 'analyze-hang.json',
      'crash.dmp': 'analyze-crash.json',
    });
    workers = [worker('deaths1'), worker('deaths1')];
    await allReady(workers);
    const out = makeTempDir('queue-deaths-out');
    // The per-dump deadline (15 s: the emulator starts slowly on a loaded machine) ends the
    // hanging dump on whichever worker runs it to the end.
    const collecting = runCli(
      [
        'analyze',
        input,
        '--queue',
        redis!.url,
        '--queue-name',
        'deaths1',
        '--engine',
        'cdb',
        '--timeout',
        '15s',
        '--out',
        out,
      ],
      { timeoutMs: 200_000 },
    );
    const killed = await killWhoeverStarts(workers, 'slow.dmp');
    const spare = worker('deaths1');
    workers.push(spare);
    const run = await collecting;
    expect(run.code, run.stderr).to.equal(4);

    const records = readRecords(out);
    const byName = new Map(records.map((r) => [r.file.split('/').pop(), r]));
    expect([...byName.keys()].sort()).to.deep.equal([
      'av1.dmp',
      'av2.dmp',
      'crash.dmp',
      'slow.dmp',
    ]);
    expect(records).to.have.length(4);
    for (const name of ['av1.dmp', 'av2.dmp']) {
      expect(byName.get(name)?.ok, JSON.stringify(byName.get(name)?.error)).to.equal(true);
    }
    // Run to its deadline by a surviving worker: the record of a finished analysis, not a loss.
    expect(byName.get('slow.dmp')?.error?.code).to.equal('TIMEOUT');
    expect(byName.get('crash.dmp')).to.include({ ok: false, quarantined: true, attempts: 2 });
    expect(byName.get('crash.dmp')?.error?.code).to.equal('DEBUGGER_EXITED');

    const done = workers.flatMap((w) => w.done());
    expect(killed.done().some((l) => l.location?.endsWith('/slow.dmp'))).to.equal(false);
    const slowDone = done.filter((l) => l.location?.endsWith('/slow.dmp'));
    expect(slowDone).to.have.length(1);
    expect(slowDone[0]?.pid).to.not.equal(killed.child.pid);
    // Every job finished exactly once across the cluster.
    const ids = done.map((l) => l.jobId);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.have.length(4);
  });

  it('gives a dump whose workers died twice to a third; four deaths quarantine it for this collection only', async () => {
    const input = cdbInputs({ 'killer.dmp': 'analyze-hang.json' });
    workers = [1, 2, 3, 4, 5].map(() => worker('deaths2'));
    await allReady(workers);
    const collect = (out: string) =>
      runCli(
        [
          ...['analyze', input, '--queue', redis!.url, '--queue-name', 'deaths2'],
          ...['--engine', 'cdb', '--timeout', '10s', '--out', out],
        ],
        { timeoutMs: 200_000 },
      );
    const out = makeTempDir('queue-deaths2-out');
    const collecting = collect(out);
    const killed: WorkerProcess[] = [];
    // Two deaths: BullMQ's stalled limit. The collector gives the job back once (KILLED_RETRIES).
    for (let i = 0; i < 4; i++) {
      killed.push(
        await killWhoeverStarts(
          workers.filter((w) => !killed.includes(w)),
          'killer.dmp',
        ),
      );
    }
    const run = await collecting;
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.match(/back to the queue \(its workers died\)/);
    const records = readRecords(out);
    expect(records).to.have.length(1);
    expect(records[0]).to.include({ ok: false, quarantined: true, attempts: 4 });
    expect(records[0]?.error?.code).to.equal('WORKER_DIED');
    expect(workers.flatMap((w) => w.done())).to.have.length(0);

    // Not kept as the dump's result: the next collection has the last worker analyse it (to its
    // deadline: the emulator's scenario hangs).
    const again = makeTempDir('queue-deaths2-again');
    const second = await collect(again);
    expect(second.code, second.stderr).to.equal(1);
    const [record] = readRecords(again);
    expect(record?.error?.code).to.equal('TIMEOUT');
    const survivor = workers.find((w) => !killed.includes(w))!;
    expect(survivor.done()).to.have.length(1);
  });
});
