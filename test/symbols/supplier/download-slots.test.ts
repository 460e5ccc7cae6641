// Download slots: never more tasks at once than slots, a slot given back however a task ends,
// and a wait for a slot ended by the run's abort (AbortedError) without taking one.
import { expect } from 'chai';
import { DownloadSlots } from '../../../src/symbols/supplier/download-slots.js';

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('symbol download slots', () => {
  it('runs at most `size` tasks at once and gives slots back when tasks end or fail', async () => {
    const slots = new DownloadSlots(2);
    let running = 0;
    let most = 0;
    const gates = Array.from({ length: 5 }, gate);
    const tasks = gates.map((g, i) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        await g.promise;
        running--;
        if (i === 0) throw new Error('first task fails');
        return i;
      }),
    );
    // Let the started tasks reach their gates, then release them one by one.
    for (const g of gates) {
      await new Promise((r) => setImmediate(r));
      expect(running).to.be.at.most(2);
      g.open();
    }
    const results = await Promise.allSettled(tasks);
    expect(most).to.equal(2);
    expect(results[0]?.status).to.equal('rejected');
    expect(results.slice(1).map((r) => (r.status === 'fulfilled' ? r.value : -1))).to.deep.equal([
      1, 2, 3, 4,
    ]);
    // All slots are free again: two new tasks start at once.
    let started = 0;
    const again = gate();
    const both = [0, 1].map(() => slots.run(async () => (started++, again.promise)));
    await new Promise((r) => setImmediate(r));
    expect(started).to.equal(2);
    again.open();
    await Promise.all(both);
  });

  it('an abort ends a wait for a slot, and the waiter takes no slot', async () => {
    const slots = new DownloadSlots(1);
    const busy = gate();
    const holder = slots.run(() => busy.promise);
    const controller = new AbortController();
    const waiter = slots
      .run(() => Promise.resolve('never'), controller.signal)
      .catch((e: unknown) => e);
    controller.abort(new Error('Ctrl-C'));
    const error = await waiter;
    expect((error as { code?: string }).code).to.equal('ABORTED');
    busy.open();
    await holder;
    // The aborted waiter did not keep the slot: the next task runs.
    expect(await slots.run(() => Promise.resolve('ran'))).to.equal('ran');
  });
});
