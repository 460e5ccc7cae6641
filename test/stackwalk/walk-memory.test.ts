// The walk's view of target memory: 512-byte lines read once and counted against the read budget,
// and cachedU32, which answers from a line already read and never reads or spends itself.
import { expect } from 'chai';
import type { TargetMemory } from '../../src/stackwalk/types.js';
import { WalkMemory } from '../../src/stackwalk/walk-memory.js';

/** Captured memory: 0x1000 bytes at 0x10000, byte i = i & 0xff; every read is logged. */
function captured(): { memory: TargetMemory; reads: bigint[] } {
  const base = 0x10000n;
  const bytes = Uint8Array.from({ length: 0x1000 }, (_, i) => i & 0xff);
  const reads: bigint[] = [];
  return {
    reads,
    memory: {
      read(address, length) {
        reads.push(address);
        if (address < base || address >= base + 0x1000n) return Promise.resolve(null);
        const at = Number(address - base);
        return Promise.resolve(bytes.subarray(at, Math.min(bytes.length, at + length)));
      },
    },
  };
}

describe('walk memory (stackwalk/walk-memory)', () => {
  it('cachedU32 answers only from a line already read, with the bytes a read gives, spending nothing', async () => {
    const { memory, reads } = captured();
    const walk = new WalkMemory(memory, 10);
    expect(walk.cachedU32(0x10204n)).to.equal(undefined);
    expect(reads).to.deep.equal([]);
    const word = await walk.u32(0x10200n);
    expect(word).to.equal(0x03020100n);
    expect(walk.reads).to.equal(1);
    // Same line (0x10200..0x10400): from the cache, as bytes() would give it.
    expect(walk.cachedU32(0x10204n)).to.equal(0x07060504);
    expect(walk.cachedU32(0x103fcn)).to.equal(0xfffefdfc);
    const viaBytes = await walk.bytes(0x103fcn, 4);
    expect(Array.from(viaBytes ?? [])).to.deep.equal([0xfc, 0xfd, 0xfe, 0xff]);
    expect(walk.reads).to.equal(1);
    expect(reads).to.have.length(1);
    // Running past the line's end, or another line: not from the cache.
    expect(walk.cachedU32(0x103fen)).to.equal(undefined);
    expect(walk.cachedU32(0x10400n)).to.equal(undefined);
    expect(walk.cachedU32(-4n)).to.equal(undefined);
  });

  it('cachedU32 leaves a line that was not captured to bytes(), which reads exactly what is asked', async () => {
    const { memory, reads } = captured();
    const walk = new WalkMemory(memory, 10);
    expect(await walk.u32(0xfe00n)).to.equal(null);
    expect(walk.cachedU32(0xfe04n)).to.equal(undefined);
    // The line 0xfe00 holds no captured byte: bytes() tries a direct read of its own.
    expect(await walk.bytes(0xfe04n, 4)).to.equal(null);
    expect(reads).to.deep.equal([0xfe00n, 0xfe00n, 0xfe04n]);
  });

  it('u32 and u64 answer from a cached line without reading, and a word across two lines is read whole', async () => {
    const { memory, reads } = captured();
    const walk = new WalkMemory(memory, 10);
    expect(await walk.u64(0x10200n)).to.equal(0x0706050403020100n);
    expect(reads).to.deep.equal([0x10200n]);
    expect(await walk.u64(0x103f8n)).to.equal(0xfffefdfcfbfaf9f8n);
    expect(await walk.u32(0x10204n)).to.equal(0x07060504n);
    expect(walk.reads).to.equal(1);
    // 0x103fc..0x10404 spans the line's end: one direct read of exactly those 8 bytes.
    expect(await walk.u64(0x103fcn)).to.equal(0x03020100fffefdfcn);
    expect(reads).to.deep.equal([0x10200n, 0x103fcn]);
    expect(walk.reads).to.equal(2);
  });
});
