// ProcDump's -p / -pl hold rule on the counter trigger: the counter values are replayed one second
// apart (typeperf itself runs only on Windows; its CSV parsing is tested in
// test/engine/dialects/common/typeperf.test.ts).
import { expect } from 'chai';
import type { CounterSource } from '../../../src/engine/dialects/common/typeperf.js';
import { waitForCounter } from '../../../src/workflows/dump/counter-trigger.js';

describe('counter trigger (-p / -pl)', () => {
  function counter(values: readonly number[]): CounterSource {
    let i = 0;
    return {
      describe: 'replay',
      read() {
        const value = values[Math.min(i, values.length - 1)] ?? 0;
        return Promise.resolve({ value, atMs: 1000 * i++ });
      },
    };
  }

  it('-p fires once the counter has stayed at or above the threshold for -s', async () => {
    const readings: [number, number][] = [];
    const firing = await waitForCounter(
      counter([100, 300, 200, 250, 400]),
      { path: '\\Process(x)\\Handle Count', direction: 'above', threshold: 200, holdMs: 2000 },
      { pollMs: 1, onReading: (v, ms) => readings.push([v, ms]) },
    );
    expect(readings).to.deep.equal([
      [100, 0],
      [300, 0],
      [200, 1000],
      [250, 2000],
    ]);
    expect(firing).to.deep.include({ trigger: 'counter-above', value: 250, heldFor: 2 });
    expect(firing.reason).to.equal('\\Process(x)\\Handle Count 250 >= 200 for 2.0 s (-p, replay)');
  });

  it('-pl fires below the threshold only (the threshold itself does not count)', async () => {
    const firing = await waitForCounter(
      counter([10, 5, 10, 4, 3]),
      { path: 'c', direction: 'below', threshold: 10, holdMs: 1000 },
      { pollMs: 1 },
    );
    expect(firing).to.deep.include({ trigger: 'counter-below', value: 3, atMs: 4000 });
  });
});
