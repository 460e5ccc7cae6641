// walkHeaps over address spaces laid out byte by byte as Wine 8's win64 heap keeps them (the
// offsets the real dumps showed: test/dbgeng/heap-walk.dbgeng.ts): a heap with sub-heaps and a
// large block, the process's heap list, and hostile lists (a loop, a list of a million entries,
// a broken back link, a sub-heap that names another heap, an entry outside the dump), plus the
// Windows layouts it names and does not walk.
import { expect } from 'chai';
import { walkHeaps, type HeapMemory } from '../../src/processor/heap-walk.js';
import type { MemoryRegion } from '../../src/minidump/streams/memory-info-list.js';

const COMMIT = 0x1000;
const RESERVE = 0x2000;
const PRIVATE = 0x20000;

/** Sparse little-endian memory: 8-byte words and 4-byte words at addresses. */
class Space implements HeapMemory {
  readonly words = new Map<bigint, bigint>();
  readonly dwords = new Map<bigint, number>();
  /** Addresses outside every captured range read as null. */
  readonly missing: [bigint, bigint][] = [];
  /** Words computed rather than stored (a list of a billion entries). */
  synth: ((address: bigint) => bigint | undefined) | undefined;
  reads = 0;

  q(address: bigint, value: bigint): void {
    this.words.set(address, value);
  }

  d(address: bigint, value: number): void {
    this.dwords.set(address, value);
  }

  readMemory(address: bigint, length: number): Promise<Buffer | null> {
    this.reads++;
    if (this.missing.some(([lo, hi]) => address >= lo && address < hi))
      return Promise.resolve(null);
    const b = Buffer.alloc(length);
    for (let i = 0; i + 8 <= length; i += 8) {
      const w = this.words.get(address + BigInt(i)) ?? this.synth?.(address + BigInt(i));
      if (w !== undefined) b.writeBigUInt64LE(w, i);
    }
    for (let i = 0; i + 4 <= length; i += 4) {
      const w = this.dwords.get(address + BigInt(i));
      if (w !== undefined) b.writeUInt32LE(w, i);
    }
    return Promise.resolve(b);
  }
}

function region(base: bigint, allocationBase: bigint, size: bigint, state: number): MemoryRegion {
  return {
    baseAddress: base,
    allocationBase,
    allocationProtect: 4,
    regionSize: size,
    state,
    protect: 4,
    type: PRIVATE,
  };
}

/** A list of entries (their `struct list` addresses) hung on `head`, linked both ways. */
function link(space: Space, head: bigint, entries: readonly bigint[]): void {
  const ring = [head, ...entries];
  ring.forEach((at, i) => {
    space.q(at, ring[(i + 1) % ring.length] ?? head);
    space.q(at + 8n, ring[(i + ring.length - 1) % ring.length] ?? head);
  });
}

/** A Wine heap header at `base`: signature, magic, empty lists (the caller links them). */
function wineHeap(space: Space, base: bigint): void {
  space.d(base + 0x10n, 0xffeeffee);
  space.d(base + 0xb8n, 0x50414548);
  link(space, base + 0x88n, []);
  link(space, base + 0x98n, []);
  link(space, base + 0x78n, []);
}

/** A sub-heap header at `at` owned by `heap`; returns its list entry. */
function subheap(space: Space, at: bigint, heap: bigint): bigint {
  space.q(at + 0x28n, heap);
  return at + 0x18n;
}

const H = 0x10a0000n;
const S2 = 0x17b0000n;
const L1 = 0x14a0000n;

/** The private heap of the real dump: 4 MB base all committed, a sub-heap, a 3 MB large block. */
function privateHeap(): { space: Space; regions: MemoryRegion[] } {
  const space = new Space();
  wineHeap(space, H);
  link(space, H + 0x88n, [subheap(space, H + 0x338n, H), subheap(space, S2 + 8n, H)]);
  link(space, H + 0x98n, [L1 + 0x10n]);
  const regions = [
    region(H, H, 0x400000n, COMMIT),
    region(S2, S2, 0x110000n, COMMIT),
    region(S2 + 0x110000n, S2, 0x2f0000n, RESERVE),
    region(L1, L1, 0x310000n, COMMIT),
  ];
  return { space, regions };
}

describe('walkHeaps (Wine 8 win64 heaps)', () => {
  it('sizes a heap from its base, its later sub-heaps and its large blocks', async () => {
    const { space, regions } = privateHeap();
    const walk = await walkHeaps(space, regions, [H], 'amd64');
    const [heap] = walk.heaps;
    expect(heap).to.include({ layout: 'wine', walk: 'complete', subHeaps: 2, largeBlocks: 1 });
    expect(heap?.parts.map((p) => [p.kind, p.allocationBase])).to.deep.equal([
      ['base', H],
      ['sub-heap', S2],
      ['large-block', L1],
    ]);
    expect(heap?.committedBytes).to.equal(0x400000 + 0x110000 + 0x310000);
    expect(heap?.reservedBytes).to.equal(0x400000 + 0x400000 + 0x310000);
    expect(heap?.note).to.equal(undefined);
  });

  it('finds the heaps the process list holds beyond the ones named', async () => {
    const { space, regions } = privateHeap();
    const other = 0x340000n;
    wineHeap(space, other);
    link(space, other + 0x78n, [H + 0x78n]);
    regions.push(
      region(other, other, 0x10000n, COMMIT),
      region(other + 0x10000n, other, 0x3f0000n, RESERVE),
    );
    const walk = await walkHeaps(space, regions, [other], 'amd64');
    expect(walk.discovered).to.deep.equal([H]);
    expect(walk.heaps.map((h) => [h.base, h.committedBytes / 1024])).to.deep.equal([
      [other, 64],
      [H, 8320],
    ]);
  });

  it('stops at a sub-heap list that loops, keeping what came before, in a bounded number of reads', async () => {
    const { space, regions } = privateHeap();
    const first = H + 0x338n + 0x18n;
    const second = S2 + 8n + 0x18n;
    // second → first again: the back links agree, so only the visit set can see the loop.
    space.q(second, first);
    const walk = await walkHeaps(space, regions, [H], 'amd64');
    const [heap] = walk.heaps;
    expect(heap?.walk).to.equal('partial');
    expect(heap?.note).to.match(/loops back to 0x10a0350/);
    expect(heap?.subHeaps).to.equal(2);
    expect(heap?.committedBytes).to.equal(0x400000 + 0x110000 + 0x310000);
    expect(space.reads).to.be.below(20);
  });

  it('reads at most maxEntries entries of a list of a billion', async () => {
    const space = new Space();
    wineHeap(space, H);
    // A large-block list of a billion entries 0x100 apart, every link consistent.
    const first = 0x20000000n;
    const last = first + 0x100n * 999_999_999n;
    const head = H + 0x98n;
    space.q(head, first);
    space.q(head + 8n, last);
    space.synth = (at) => {
      if (at < first || at > last + 8n || (at - first) % 0x100n > 8n) return undefined;
      const entry = at - ((at - first) % 0x100n);
      if (at === entry) return entry === last ? head : entry + 0x100n;
      return entry === first ? head : entry - 0x100n;
    };
    const walk = await walkHeaps(space, [region(H, H, 0x10000n, COMMIT)], [H], 'amd64', {
      maxEntries: 1000,
    });
    expect(walk.entriesRead).to.equal(1000);
    expect(walk.heaps[0]?.walk).to.equal('partial');
    expect(walk.heaps[0]?.note).to.match(/stopped after 1000 list entries/);
    expect(space.reads).to.be.below(1100);
  });

  it('stops at a broken back link, an entry outside the dump, and a sub-heap owned by another heap', async () => {
    const broken = privateHeap();
    broken.space.q(S2 + 8n + 0x18n + 8n, 0xdead0000n);
    const a = (await walkHeaps(broken.space, broken.regions, [H], 'amd64')).heaps[0];
    expect(a?.note).to.match(/links back to 0xdead0000, not 0x10a0350/);
    expect(a?.parts.map((p) => p.kind)).to.deep.equal(['base', 'large-block']);

    const outside = privateHeap();
    outside.space.missing.push([L1, L1 + 0x1000n]);
    const b = (await walkHeaps(outside.space, outside.regions, [H], 'amd64')).heaps[0];
    expect(b?.note).to.match(/list entry 0x14a0010 is not in the dump/);
    expect(b?.largeBlocks).to.equal(0);

    const foreign = privateHeap();
    foreign.space.q(S2 + 8n + 0x28n, 0x340000n);
    const c = (await walkHeaps(foreign.space, foreign.regions, [H], 'amd64')).heaps[0];
    expect(c?.note).to.match(/sub-heap 0x17b0008 does not name heap 0x10a0000/);
    expect(c?.parts.map((p) => p.kind)).to.deep.equal(['base', 'large-block']);
  });
});

describe('walkHeaps (layouts it names and does not walk)', () => {
  const regions = [region(H, H, 0x20000n, COMMIT), region(H + 0x20000n, H, 0xe0000n, RESERVE)];

  for (const [what, signature, layout, note] of [
    ['a Windows NT heap', 0xffeeffee, 'nt', /Windows NT heap .*not walked/],
    ['a Windows segment heap', 0xddeeddee, 'segment-heap', /segment heap .*not walked/],
    ['no heap at all', 0, 'unknown', /no heap header recognized/],
  ] as const) {
    it(`${what}: the allocation holding its base, with a note`, async () => {
      const space = new Space();
      space.d(H + 0x10n, signature);
      const [heap] = (await walkHeaps(space, regions, [H], 'amd64')).heaps;
      expect(heap).to.include({ layout, walk: 'base-only', committedBytes: 0x20000 });
      expect(heap?.reservedBytes).to.equal(0x100000);
      expect(heap?.note).to.match(note);
    });
  }

  it('an x86 dump: not walked, said so', async () => {
    const { space } = privateHeap();
    const [heap] = (await walkHeaps(space, regions, [H], 'x86')).heaps;
    expect(heap?.walk).to.equal('base-only');
    expect(heap?.note).to.match(/a x86 dump: only win64 heaps are walked/);
  });
});
