// `--shard auto`: the index and count batch engines give each copy of a command (Kubernetes
// indexed Jobs, Slurm arrays, AWS Batch arrays), 0-based there, 1-based here; a missing or
// impossible index is a usage error that says which variables were looked for.
import { expect } from 'chai';
import { parseShard } from '../../../src/workflows/analyze/inputs.js';

describe('analyze --shard auto', () => {
  it('reads each batch engine’s index and count', () => {
    expect(parseShard('auto', { JOB_COMPLETION_INDEX: '0', JOB_COMPLETIONS: '3' })).to.deep.equal({
      index: 1,
      count: 3,
    });
    expect(
      parseShard('auto', {
        SLURM_ARRAY_TASK_ID: '12',
        SLURM_ARRAY_TASK_MIN: '10',
        SLURM_ARRAY_TASK_COUNT: '4',
      }),
    ).to.deep.equal({ index: 3, count: 4 });
    expect(
      parseShard('auto', { AWS_BATCH_JOB_ARRAY_INDEX: '4', AWS_BATCH_JOB_ARRAY_SIZE: '5' }),
    ).to.deep.equal({ index: 5, count: 5 });
    expect(parseShard('2/4', {})).to.deep.equal({ index: 2, count: 4 });
  });

  it('refuses a missing, unsized or out-of-range index', () => {
    expect(() => parseShard('auto', {})).to.throw(/JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID/);
    expect(() => parseShard('auto', { JOB_COMPLETION_INDEX: '1' })).to.throw(/Kubernetes index 1/);
    expect(() =>
      parseShard('auto', { AWS_BATCH_JOB_ARRAY_INDEX: '5', AWS_BATCH_JOB_ARRAY_SIZE: '5' }),
    ).to.throw(/AWS Batch/);
  });
});
