// The walker's inline hook (src/stackwalk/walk.ts, SymbolProvider.inlines): asked once for each
// frame the walk keeps, at the frame's lookup address, after lookup() named it, and never for the
// stack words a scan only considers; its answer goes on the frame, offsets measured to the frame's
// address as the frame's own symbol is. A hand-built x64 stack with no images (scanned callers).
import { expect } from 'chai';
import { walkStack } from '../../src/stackwalk/walk.js';
import type { ModuleRef, SymbolHit, SymbolProvider } from '../../src/stackwalk/types.js';
import { FakeMemory } from './helpers/fake-image.js';

const BASE = 0x140000000n;
const APP: ModuleRef = {
  name: 'app.exe',
  path: 'C:\\app\\app.exe',
  base: BASE,
  size: 0x10000,
  timestamp: 0x5f000000,
};
const STACK = 0x100000n;

/** Functions of app.exe by rva: [start, end, name]; the one at 0x2000 has an inlined call. */
const FUNCTIONS: [number, number, string][] = [
  [0x1000, 0x1100, 'crash_here'],
  [0x2000, 0x2100, 'caller'],
  [0x3000, 0x3100, 'main'],
];

function provider(asked: { lookups: number[]; inlines: number[] }): SymbolProvider {
  return {
    lookup(_module, rva): SymbolHit | undefined {
      asked.lookups.push(rva);
      const f = FUNCTIONS.find(([start, end]) => rva >= start && rva < end);
      return f === undefined ? undefined : { function: f[2], offset: rva - f[0] };
    },
    covers: () => true,
    inlines(_module, rva): Promise<SymbolHit[] | undefined> {
      asked.inlines.push(rva);
      if (rva < 0x2040 || rva >= 0x2060) return Promise.resolve(undefined);
      return Promise.resolve([
        { function: 'inner', offset: rva - 0x2050, line: 7 },
        { function: 'middle', offset: rva - 0x2040, line: 12 },
      ]);
    },
  };
}

describe('stack walk: inline frames asked for kept frames only (src/stackwalk/walk.ts)', () => {
  it('puts the inlined calls on the frame whose return address lies in them', async () => {
    const memory = new FakeMemory();
    memory.range(STACK, 0x200);
    // Decoys a scan looks at and rejects (no function there), then the real return addresses.
    memory
      .u64(STACK, BASE + 0x2058n) // frame 1: return into caller, inside the inlined calls
      .u64(STACK + 8n, BASE + 0x4000n) // decoy: in the module, in no function
      .u64(STACK + 16n, BASE + 0x5000n) // decoy
      .u64(STACK + 24n, BASE + 0x3010n); // frame 2: return into main
    const asked = { lookups: [] as number[], inlines: [] as number[] };
    const walk = await walkStack({
      arch: 'amd64',
      threadId: 1,
      registers: { rip: BASE + 0x1010n, rsp: STACK, rbp: 0n },
      stack: { low: STACK, high: STACK + 0x200n },
      memory,
      modules: [APP],
      symbols: provider(asked),
    });
    const named = walk.frames.map((f) => f.symbol?.function);
    expect(named.slice(0, 3)).to.deep.equal(['crash_here', 'caller', 'main']);
    // One inline question per kept, named frame, at its lookup address; none for the decoys.
    const kept = walk.frames
      .filter((f) => f.symbol !== undefined)
      .map((f) => Number(f.instruction - BASE));
    expect(asked.inlines).to.deep.equal(kept);
    expect(asked.lookups.length).to.be.greaterThan(kept.length);
    for (const decoy of [0x4000, 0x5000]) {
      expect(asked.inlines.some((rva) => rva >= decoy - 1 && rva <= decoy)).to.equal(false);
    }
    // Frame 1's inlined calls, innermost first, offsets to the return address (one past the call).
    expect(walk.frames[1]?.inlines).to.deep.equal([
      { function: 'inner', offset: 0x8, line: 7 },
      { function: 'middle', offset: 0x18, line: 12 },
    ]);
    expect(walk.frames[0]?.inlines).to.equal(undefined);
    expect(walk.frames[2]?.inlines).to.equal(undefined);
  });
});
