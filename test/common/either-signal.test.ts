// eitherSignal: one signal from two that may be absent, aborting when either does.
import { expect } from 'chai';
import { eitherSignal } from '../../src/common/either-signal.js';

describe('eitherSignal', () => {
  it('is the one given, or none', () => {
    const a = new AbortController().signal;
    expect(eitherSignal(a, undefined)).to.equal(a);
    expect(eitherSignal(undefined, a)).to.equal(a);
    expect(eitherSignal(undefined, undefined)).to.equal(undefined);
  });

  it('aborts with whichever of two aborts, with its reason', () => {
    for (const which of [0, 1]) {
      const controllers = [new AbortController(), new AbortController()];
      const both = eitherSignal(controllers[0]!.signal, controllers[1]!.signal);
      expect(both.aborted).to.equal(false);
      controllers[which]!.abort(`reason ${which}`);
      expect(both.aborted).to.equal(true);
      expect(both.reason).to.equal(`reason ${which}`);
    }
  });
});
