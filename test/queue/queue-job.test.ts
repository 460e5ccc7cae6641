// Job ids: the same dump content with the same options is one job whatever its name; another
// content or any option that changes the record is another job; ids are legal BullMQ ids.
import { expect } from 'chai';
import {
  checkQueueName,
  engineQueueName,
  jobIdOf,
  type JobAnalysisOptions,
} from '../../src/queue/queue-job.js';

const SHA = 'a'.repeat(64);
const OPTIONS: JobAnalysisOptions = { engine: 'builtin', timeoutMs: 120_000, walkStacks: true };

describe('queue jobs', () => {
  it('derives the id from the content and every option that changes a record', () => {
    const id = jobIdOf(SHA, OPTIONS);
    expect(id).to.match(/^a{64}\.[0-9a-f]{16}$/);
    expect(id).to.not.include(':');
    expect(jobIdOf(SHA, { ...OPTIONS })).to.equal(id);
    const others = [
      jobIdOf('b'.repeat(64), OPTIONS),
      jobIdOf(SHA, { ...OPTIONS, engine: 'cdb' }),
      jobIdOf(SHA, { ...OPTIONS, timeoutMs: 30_000 }),
      jobIdOf(SHA, { ...OPTIONS, walkStacks: false }),
      jobIdOf(SHA, { ...OPTIONS, skipModules: ['mylib'] }),
      jobIdOf(SHA, { ...OPTIONS, script: [{ command: 'k', line: 1 }] }),
    ];
    expect(new Set([id, ...others]).size).to.equal(others.length + 1);
  });

  it('names one queue per engine and refuses queue names Redis keys cannot carry', () => {
    expect(engineQueueName('crashes', 'cdb')).to.equal('crashes-cdb');
    expect(checkQueueName('crash-triage.prod_2')).to.equal('crash-triage.prod_2');
    for (const bad of ['a:b', '', 'with space', '-leading', 'x'.repeat(101)]) {
      expect(() => checkQueueName(bad), bad).to.throw(/--queue-name/);
    }
  });
});
