// The scan's fast path: words in no module are passed over by numeric module bounds
// (ModuleIndex.atNumber) without a BigInt made of each; the hits must be those of the BigInt
// lookup alone, on stacks holding words at module edges, just past them, and with high halves
// at and above 2^21 (addresses at and above 2^53). Without images, as most dumps users get.
import { expect } from 'chai';
import { scanForReturn, type ModuleIndex } from '../../src/stackwalk/scan.js';
import type { ModuleRef, TargetMemory, WalkInput } from '../../src/stackwalk/types.js';
import { moduleIndex } from '../../src/stackwalk/module-index.js';
import { WalkMemory } from '../../src/stackwalk/walk-memory.js';

const STACK = 0x7ff0_0000n;

function module(name: string, base: bigint, size: number): ModuleRef {
  return { name, path: `C:\\app\\${name}`, base, size, timestamp: 1 };
}

/** Modules out of address order (the index sorts them), one ending exactly at 2^53. */
const MODULES = [
  module('b.dll', 0x7ffe_1234_0000n, 0x20_0000),
  module('a.exe', 0x14000_0000n, 0x4_0000),
  module('x.dll', 0x1000_0000n, 0x2_0000), // an x86 one, for 4-byte words
  module('top.dll', 0x20_0000_0000_0000n - 0x10_0000n, 0x10_0000),
];

/** Words a scan meets: module edges, one past, no module, and high halves around 2^21. */
function words(): bigint[] {
  const out: bigint[] = [];
  for (const m of MODULES) {
    const end = m.base + BigInt(m.size);
    out.push(m.base, m.base + 0xfffn, m.base + 0x1000n, m.base + 0x1234n, end - 1n, end);
  }
  out.push(0n, 1n, 0x1f_ffff_ffff_ffffn, 0x20_0000_0000_0000n, 0xffff_ffff_ffff_ffffn);
  out.push(0x20_0000_1400_1000n, 0x1_0000_0000n + 0x14000_1000n);
  return out;
}

/** What moduleIndex reads of a walk's input: no images, no symbols. */
const INPUT: WalkInput = {
  arch: 'amd64',
  threadId: 1,
  registers: {},
  memory: { read: () => Promise.resolve(null) },
  modules: MODULES,
};

function stackOf(values: bigint[], wordSize: 4 | 8): TargetMemory {
  const bytes = Buffer.alloc(values.length * wordSize);
  values.forEach((v, i) => {
    if (wordSize === 8) bytes.writeBigUInt64LE(v, i * 8);
    else bytes.writeUInt32LE(Number(v & 0xffff_ffffn), i * 4);
  });
  const read = (address: bigint, length: number) => {
    const at = Number(address - STACK);
    if (at < 0 || at >= bytes.length) return null;
    return bytes.subarray(at, Math.min(bytes.length, at + length));
  };
  return { read: (a, l) => Promise.resolve(read(a, l)), readNow: read };
}

async function allHits(values: bigint[], wordSize: 4 | 8, index: ModuleIndex) {
  const hits: string[] = [];
  const end = STACK + BigInt(values.length * wordSize);
  for (let from = STACK; from < end; from += BigInt(wordSize)) {
    const memory = new WalkMemory(stackOf(values, wordSize), 100);
    const hit = await scanForReturn(from, end, wordSize, memory, index);
    hits.push(
      hit === null ? 'none' : `${hit.ip.toString(16)}@${hit.slot.toString(16)}:${hit.trust}`,
    );
  }
  return hits;
}

describe('stack scan (stackwalk/scan): numeric module bounds', () => {
  for (const wordSize of [8, 4] as const) {
    it(`finds the same return addresses as the BigInt lookup alone (${wordSize}-byte words)`, async () => {
      const values = words();
      const fast = moduleIndex(MODULES, INPUT);
      expect(fast.atNumber !== undefined, 'every module lies below 2^53').to.equal(true);
      const slow: ModuleIndex = { at: (a) => fast.at(a), image: () => undefined };
      const want = await allHits(values, wordSize, slow);
      expect(await allHits(values, wordSize, fast)).to.deep.equal(want);
      // The stacks hold hits to find: a module word past the header page, not just "none".
      expect(want.filter((h) => h !== 'none')).to.not.deep.equal([]);
    });
  }

  it('leaves numeric bounds out when a module reaches past 2^53', () => {
    const high = [...MODULES, module('k.sys', 0xffff_f800_0000_0000n, 0x1000)];
    expect(moduleIndex(high, INPUT).atNumber === undefined).to.equal(true);
    expect(moduleIndex(high, INPUT).at(0xffff_f800_0000_0010n)?.name).to.equal('k.sys');
  });
});

describe('stack scan (stackwalk/scan): what a return address can be', () => {
  const APP = MODULES[1]!; // a.exe at 0x140000000
  const word = (rva: number) => APP.base + BigInt(rva);
  /** Memory holding `stack` words at STACK and code bytes at given addresses. */
  function memoryOf(stack: bigint[], code: [bigint, number[]][] = []): TargetMemory {
    const words = stackOf(stack, 8);
    const read = (address: bigint, length: number): Uint8Array | null => {
      for (const [start, bytes] of code) {
        const at = Number(address - start);
        if (at >= 0 && at < bytes.length) return Uint8Array.from(bytes.slice(at, at + length));
      }
      return words.readNow!(address, length) ?? null;
    };
    return { read: (a, l) => Promise.resolve(read(a, l)), readNow: read };
  }
  async function firstHit(memory: TargetMemory, index: ModuleIndex, count: number) {
    const hit = await scanForReturn(
      STACK,
      STACK + BigInt(count * 8),
      8,
      new WalkMemory(memory, 100),
      index,
    );
    return hit === null ? 'none' : `a.exe+0x${(hit.ip - APP.base).toString(16)}:${hit.trust}`;
  }

  it('with a symbol file, a word at a function’s first byte is a function pointer, never a return address', async () => {
    // Two functions back to back (no padding): the byte before f2's start lies inside f1.
    const functions = [
      { name: 'f1', start: 0x1000, size: 0x100 },
      { name: 'f2', start: 0x1100, size: 0x100 },
    ];
    const index = moduleIndex(MODULES, {
      ...INPUT,
      symbols: {
        lookup(_m, rva) {
          const f = functions.find((fn) => rva >= fn.start && rva < fn.start + fn.size);
          return f === undefined ? undefined : { function: f.name, offset: rva - f.start };
        },
        covers: (m) => m.name === 'a.exe',
      },
    });
    const memory = memoryOf([word(0x1100), word(0x1050)]);
    expect(await firstHit(memory, index, 2)).to.equal('a.exe+0x1050:scan');
  });

  it('without an image, the code bytes the dump holds before a word must end with a call', async () => {
    const index = moduleIndex(MODULES, INPUT);
    const memory = memoryOf(
      [word(0x2010), word(0x2110), word(0x3000)],
      [
        [word(0x2010 - 7), [0x48, 0x8d, 0x05, 0x00, 0x10, 0x00, 0x00]], // lea: no call
        [word(0x2110 - 7), [0x90, 0x90, 0xe8, 0x10, 0x00, 0x00, 0x00]], // call rel32
      ],
    );
    // 0x2010 is rejected by its code, 0x2110 follows a call; 0x3000's code is not in the dump.
    expect(await firstHit(memory, index, 3)).to.equal('a.exe+0x2110:scan-call');
    expect(await firstHit(memoryOf([word(0x3000)]), index, 1)).to.equal('a.exe+0x3000:scan');
  });
});
