// Job ids and queue names: the same dump content with the same options is one job whatever its
// name; another content or any option that changes the record is another job; ids are legal
// BullMQ ids. An engine set is one queue however it is spelled, and a worker serves exactly the
// queues whose set holds its engine.
import { expect } from 'chai';
import {
  checkQueueName,
  engineQueueName,
  engineSet,
  jobIdOf,
  servedQueues,
  TRIAGE_ENGINES,
  type JobAnalysisOptions,
} from '../../src/queue/queue-job.js';

const SHA = 'a'.repeat(64);
const OPTIONS: JobAnalysisOptions = { engines: ['builtin'], timeoutMs: 120_000, walkStacks: true };

describe('queue jobs', () => {
  it('derives the id from the content and every option that changes a record', () => {
    const id = jobIdOf(SHA, OPTIONS);
    expect(id).to.match(/^a{64}\.[0-9a-f]{16}$/);
    expect(id).to.not.include(':');
    expect(jobIdOf(SHA, { ...OPTIONS })).to.equal(id);
    const others = [
      jobIdOf('b'.repeat(64), OPTIONS),
      jobIdOf(SHA, { ...OPTIONS, engines: ['cdb'] }),
      jobIdOf(SHA, { ...OPTIONS, engines: ['cdb', 'builtin'] }),
      jobIdOf(SHA, { ...OPTIONS, engines: [...TRIAGE_ENGINES] }),
      jobIdOf(SHA, { ...OPTIONS, timeoutMs: 30_000 }),
      jobIdOf(SHA, { ...OPTIONS, walkStacks: false }),
      jobIdOf(SHA, { ...OPTIONS, skipModules: ['mylib'] }),
      jobIdOf(SHA, { ...OPTIONS, script: [{ command: 'k', line: 1 }] }),
    ];
    expect(new Set([id, ...others]).size).to.equal(others.length + 1);
  });

  it('reads --engine as an engine set: one, a list in any order, or any', () => {
    expect(TRIAGE_ENGINES).to.deep.equal(['cdb', 'winedbg', 'builtin']);
    expect(engineSet('builtin')).to.deep.equal(['builtin']);
    expect(engineSet('builtin,cdb')).to.deep.equal(['cdb', 'builtin']);
    expect(engineSet(' cdb , builtin,cdb')).to.deep.equal(['cdb', 'builtin']);
    expect(engineSet('any')).to.deep.equal(['cdb', 'winedbg', 'builtin']);
    expect(engineSet('auto')).to.deep.equal(['cdb', 'winedbg', 'builtin']);
    // dotnet-dump reads .NET dumps only: it cannot triage, so no job asks for it.
    for (const bad of ['', 'gdb', 'cdb,gdb', 'dotnet-dump', 'any,cdb']) {
      expect(() => engineSet(bad), bad).to.throw(/--engine with --queue wants any/);
    }
  });

  it('names one queue per engine set and gives each worker the sets that hold its engine', () => {
    expect(engineQueueName('crashes', ['cdb'])).to.equal('crashes-cdb');
    expect(engineQueueName('crashes', engineSet('builtin,cdb'))).to.equal('crashes-cdb+builtin');
    expect(engineQueueName('crashes', engineSet('any'))).to.equal('crashes-any');
    expect(servedQueues('crashes', 'builtin')).to.deep.equal([
      'crashes-builtin',
      'crashes-cdb+builtin',
      'crashes-winedbg+builtin',
      'crashes-any',
    ]);
    // Every set's queue is served by the workers of exactly the engines in it.
    const sets = [['cdb'], ['cdb', 'builtin'], ['winedbg', 'builtin'], [...TRIAGE_ENGINES]];
    for (const set of sets) {
      const queue = engineQueueName('crashes', set as (typeof TRIAGE_ENGINES)[number][]);
      const takers = TRIAGE_ENGINES.filter((e) => servedQueues('crashes', e).includes(queue));
      expect(takers, queue).to.deep.equal(set);
    }
  });

  it('refuses queue names Redis keys cannot carry', () => {
    expect(checkQueueName('crash-triage.prod_2')).to.equal('crash-triage.prod_2');
    for (const bad of ['a:b', '', 'with space', '-leading', 'x'.repeat(101)]) {
      expect(() => checkQueueName(bad), bad).to.throw(/--queue-name/);
    }
  });
});
