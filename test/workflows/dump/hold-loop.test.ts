// The hold rule the CPU, counter and hung-window triggers share: sample, fire once the condition
// has held for the hold time without a break, end with null when the source goes away. Samples are
// replayed values one second apart, so no clock is read.
import { expect } from 'chai';
import { isHarnessError } from '../../../src/errors.js';
import { holdUntil, type Sampler } from '../../../src/workflows/dump/hold-loop.js';

type Value = { atMs: number; value: number };

/** Replays values one a second (atMs 0, 1000, …); null after the last one (the source is gone). */
function replay(values: readonly number[]): Sampler<Value> & { reads: number } {
  let i = 0;
  const sampler = Object.assign(
    (): Promise<Value | null> => {
      sampler.reads++;
      const value = values[i];
      const sample = value === undefined ? null : { atMs: i * 1000, value };
      i++;
      return Promise.resolve(sample);
    },
    { reads: 0 },
  );
  return sampler;
}

const over10 = { met: (s: Value) => s.value > 10 };

describe('hold loop', () => {
  it('fires on the sample that completes the hold; a break restarts the count', async () => {
    const seen: { met: boolean; heldMs: number }[] = [];
    const held = await holdUntil(replay([20, 20, 5, 20, 20, 20, 20]), over10, {
      holdMs: 2000,
      pollMs: 1,
      waiting: 'testing',
      onSample: (_s, h) => seen.push(h),
    });
    expect(held).to.deep.equal({ sample: { atMs: 5000, value: 20 }, heldMs: 2000 });
    expect(seen.map((h) => h.heldMs)).to.deep.equal([0, 1000, 0, 0, 1000, 2000]);
    expect(seen.map((h) => h.met)).to.deep.equal([true, true, false, true, true, true]);
  });

  it('ends with null when the source goes away before the hold completes', async () => {
    const sampler = replay([20, 20]);
    expect(await holdUntil(sampler, over10, { holdMs: 60_000, pollMs: 1, waiting: 'x' })).to.equal(
      null,
    );
    expect(sampler.reads).to.equal(3);
  });

  it("counts from the condition's own start when it knows it (one window's silence)", async () => {
    // The condition says it has held since 500 ms, before the run of met samples began.
    const held = await holdUntil(
      replay([5, 20, 20]),
      { ...over10, heldSince: () => 500 },
      { holdMs: 1500, pollMs: 1, waiting: 'x' },
    );
    expect(held).to.deep.equal({ sample: { atMs: 2000, value: 20 }, heldMs: 1500 });
  });

  it('waits one interval before the first sample only when asked to', async () => {
    // Without waitFirst the first sample comes at once (a hold of 0 fires on it).
    const now = replay([20]);
    expect(await holdUntil(now, over10, { holdMs: 0, pollMs: 60_000, waiting: 'x' })).to.not.equal(
      null,
    );
    expect(now.reads).to.equal(1);
    // With it the wait sleeps first: aborted during that sleep, it has taken no sample.
    const later = replay([20]);
    const controller = new AbortController();
    const waiting = holdUntil(later, over10, {
      holdMs: 0,
      pollMs: 60_000,
      waitFirst: true,
      waiting: 'x',
      signal: controller.signal,
    });
    setImmediate(() => controller.abort());
    const error: unknown = await waiting.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isHarnessError(error) && error.code).to.equal('ABORTED');
    expect(later.reads).to.equal(0);
  });

  it('stops on an aborted signal with an error naming the wait, taking no sample', async () => {
    const controller = new AbortController();
    controller.abort();
    const sampler = replay([20]);
    try {
      await holdUntil(sampler, over10, {
        holdMs: 0,
        pollMs: 1,
        waiting: 'waiting for the test',
        signal: controller.signal,
      });
      expect.fail('the wait went on after the abort');
    } catch (error) {
      expect(isHarnessError(error) && error.code).to.equal('ABORTED');
      expect((error as Error).message).to.equal('interrupted while waiting for the test');
    }
    expect(sampler.reads).to.equal(0);
  });
});
