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

/**
 * The same captured memory, answering readNow as read once `ready` is set (a stack already in
 * hand), undefined before; reads of either kind are logged.
 */
function capturedNow(): { memory: TargetMemory; reads: string[]; ready: () => void } {
  const { memory } = captured();
  const reads: string[] = [];
  let ready = false;
  return {
    reads,
    ready: () => (ready = true),
    memory: {
      read(address, length) {
        reads.push(`read ${address.toString(16)}+${length}`);
        return memory.read(address, length);
      },
      readNow(address, length) {
        if (!ready) return undefined;
        reads.push(`now ${address.toString(16)}+${length}`);
        const base = 0x10000n;
        if (address < base || address >= base + 0x1000n) return null;
        const at = Number(address - base);
        const bytes = Uint8Array.from({ length: 0x1000 }, (_, i) => i & 0xff);
        return bytes.subarray(at, Math.min(bytes.length, at + length));
      },
    },
  };
}

/** Every read a walk may make, at line edges, across lines, outside the capture and at 2^64. */
const PROBES: [bigint, number][] = [
  [0x10200n, 8],
  [0x103f8n, 8],
  [0x103fcn, 8], // across two lines
  [0x10400n, 4],
  [0x10ffcn, 4], // the capture's last word
  [0x10ffcn, 8], // running past the capture's end
  [0xfffcn, 8], // starting before it
  [0xfe00n, 4],
  [0x10000n, 512],
  [0x10001n, 512], // across two lines
  [0xffff_ffff_ffff_fffcn, 4],
  [0xffff_ffff_ffff_fffcn, 8], // past 2^64 - 1
  [0x20_0000_0000_0000n, 4], // above 2^53: lines keyed by bigint
];

describe('walk memory: the synchronous path (bytesNow, u32Now, u64Now)', () => {
  it('answers what bytes() answers, with the same budget spent, at line edges and across lines', async () => {
    const slow = new WalkMemory(captured().memory, 100);
    const { memory, ready } = capturedNow();
    ready();
    const fast = new WalkMemory(memory, 100);
    for (const [address, length] of PROBES) {
      const want = await slow.bytes(address, length);
      const now = fast.bytesNow(address, length);
      expect(now, `${address.toString(16)}+${length}`).to.not.equal(undefined);
      expect(now === null || now === undefined ? null : Array.from(now)).to.deep.equal(
        want === null ? null : Array.from(want),
      );
      expect(fast.reads, `reads after ${address.toString(16)}+${length}`).to.equal(slow.reads);
      expect(fast.u64Now(address)).to.equal(await slow.u64(address));
      expect(fast.u32Now(address)).to.equal(await slow.u32(address));
      expect(fast.reads).to.equal(slow.reads);
    }
  });

  it('answers undefined and spends nothing until the memory can answer at once; bytes() then reads', async () => {
    const { memory, reads, ready } = capturedNow();
    const walk = new WalkMemory(memory, 10);
    expect(walk.bytesNow(0x10200n, 8)).to.equal(undefined);
    expect(walk.u64Now(0x10200n)).to.equal(undefined);
    expect(walk.reads).to.equal(0);
    expect(await walk.u64(0x10200n)).to.equal(0x0706050403020100n);
    expect(reads).to.deep.equal(['read 10200+512']);
    // The line is cached now: answered without any read, whatever the memory says.
    expect(walk.u64Now(0x10208n)).to.equal(0x0f0e0d0c0b0a0908n);
    expect(walk.cachedU32At(0x10208)).to.equal(0x0b0a0908);
    expect(walk.reads).to.equal(1);
    ready();
    expect(Array.from(walk.bytesNow(0x10600n, 2) ?? [])).to.deep.equal([0, 1]);
    expect(reads).to.deep.equal(['read 10200+512', 'now 10600+512']);
    expect(walk.reads).to.equal(2);
  });

  it('runs out of budget as bytes() does: null, exhausted, and nothing more read', async () => {
    const { memory, reads, ready } = capturedNow();
    ready();
    const fast = new WalkMemory(memory, 2);
    const slow = new WalkMemory(captured().memory, 2);
    for (const address of [0x10200n, 0x103fcn, 0x10600n, 0x10200n]) {
      const want = await slow.u64(address);
      expect(fast.u64Now(address)).to.equal(want);
      expect(fast.exhausted).to.equal(slow.exhausted);
      expect(fast.reads).to.equal(slow.reads);
    }
    // The third read found the budget spent; the fourth came from the line read first.
    expect(fast.exhausted).to.equal(true);
    expect(reads).to.deep.equal(['now 10200+512', 'now 103fc+8']);
  });
});
