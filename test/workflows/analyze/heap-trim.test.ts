import { expect } from 'chai';
import { runInNewContext } from 'node:vm';
import { heapTrimmer } from '../../../src/workflows/analyze/heap-trim.js';

describe('heapTrimmer (the batch thread heap, kept small over a long batch)', () => {
  it('collects once the heap passes its limit, looking only every 256 records', () => {
    // A floor of one byte: every look finds the heap above it.
    const trimmer = heapTrimmer(1);
    for (let i = 0; i < 255; i++) trimmer.tick();
    expect(trimmer.collections).to.equal(0);
    trimmer.tick();
    expect(trimmer.collections).to.equal(1);
  });

  it('leaves a heap below its floor alone', () => {
    const trimmer = heapTrimmer(Number.MAX_SAFE_INTEGER);
    for (let i = 0; i < 1024; i++) trimmer.tick();
    expect(trimmer.collections).to.equal(0);
  });

  it('gives no later context a global gc', () => {
    heapTrimmer(1);
    const trimmer = heapTrimmer(1);
    for (let i = 0; i < 256; i++) trimmer.tick();
    expect(trimmer.collections).to.equal(1);
    expect(runInNewContext('typeof gc')).to.equal('undefined');
  });
});
