import { expect } from 'chai';
import {
  defaultJobs,
  MAX_THREADS,
  MIN_DUMPS_FOR_THREADS,
  threadPlan,
  type ThreadPlanInput,
} from '../../../src/workflows/analyze/thread-plan.js';

const big: ThreadPlanInput = {
  engine: 'builtin',
  inputs: MIN_DUMPS_FOR_THREADS,
  cores: 4,
  env: {},
  customFetch: false,
};

describe('threadPlan (when analyze uses threads)', () => {
  it('gives a big builtin batch one thread per core, up to MAX_THREADS', () => {
    expect(threadPlan(big)).to.deep.include({ threads: 4 });
    expect(threadPlan({ ...big, cores: 2 })).to.deep.include({ threads: 2 });
    expect(threadPlan({ ...big, cores: 64 })).to.deep.include({ threads: MAX_THREADS });
  });

  it('keeps small batches, one core, --jobs 1 and debugger engines on one thread', () => {
    expect(threadPlan({ ...big, inputs: MIN_DUMPS_FOR_THREADS - 1 }).threads).to.equal(0);
    expect(threadPlan({ ...big, cores: 1 }).threads).to.equal(0);
    expect(threadPlan({ ...big, jobs: 1 }).threads).to.equal(0);
    expect(threadPlan({ ...big, engine: 'cdb' }).threads).to.equal(0);
    expect(threadPlan({ ...big, requested: 0 }).threads).to.equal(0);
  });

  it('keeps symbol files on one thread unless --threads asks, and symbol servers always', () => {
    const withSym = threadPlan({ ...big, symbolPath: '/syms' });
    expect(withSym.threads).to.equal(0);
    expect(withSym.reason).to.match(/symbol files/);
    expect(threadPlan({ ...big, env: { _NT_SYMBOL_PATH: '/syms' } }).threads).to.equal(0);
    expect(threadPlan({ ...big, symbolPath: '/syms', requested: 2 }).threads).to.equal(2);
    const server = 'srv*/cache*https://msdl.microsoft.com/download/symbols';
    expect(threadPlan({ ...big, symbolPath: server, requested: 2 }).threads).to.equal(0);
    expect(threadPlan({ ...big, customFetch: true, requested: 2 }).threads).to.equal(0);
  });

  it('takes --threads N over the size rule, never more threads than dumps', () => {
    expect(threadPlan({ ...big, inputs: 3, requested: 2 }).threads).to.equal(2);
    expect(threadPlan({ ...big, inputs: 1, requested: 4 }).threads).to.equal(1);
  });

  it('runs one dump per core with local symbol files, four per core otherwise (builtin)', () => {
    const base = { engine: 'builtin', cores: 2, env: {} };
    expect(defaultJobs(base)).to.equal(8);
    expect(defaultJobs({ ...base, symbolPath: '/syms' })).to.equal(2);
    // From the environment, as the supplier reads it.
    expect(defaultJobs({ ...base, env: { _NT_SYMBOL_PATH: 'srv*/cache' } })).to.equal(2);
    // A symbol server: downloads overlap, so four per core.
    expect(
      defaultJobs({
        ...base,
        symbolPath: 'srv*/cache*https://msdl.microsoft.com/download/symbols',
      }),
    ).to.equal(8);
    // A debugger engine: one debugger process per core, whatever the symbols.
    expect(defaultJobs({ ...base, engine: 'cdb' })).to.equal(2);
  });
});
