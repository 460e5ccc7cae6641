// The x86 caller step answers without a promise when its hooks and reads do (unwind-caller.ts,
// x86-unwind.ts). These walks check that path against the asynchronous one on seeded random x86
// stacks: EBP chains with broken links, holes in the captured stack, FPO and STACK WIN 4 frame
// data, STACK CFI, and read budgets small enough to run out mid-walk. Each stack is walked with
// memory and hooks that always wait (promises only) and with ones that answer at once; the walks
// must be the same frame for frame, with the same warnings and stop.
import { expect } from 'chai';
import type {
  CfiRules,
  ModuleRef,
  StackWalk,
  TargetMemory,
  UnwindProvider,
  X86FrameData,
} from '../../src/stackwalk/types.js';
import { walkStack } from '../../src/stackwalk/walk.js';
import { xorshift32 } from '../helpers/seeded-random.js';

const STACK_LOW = 0x12e000;
const STACK_SIZE = 0x2000;
const MODULES: ModuleRef[] = [
  { name: 'app.exe', path: 'C:\\app.exe', base: 0x400000n, size: 0x10000, timestamp: 1 },
  { name: 'k32.dll', path: 'C:\\k32.dll', base: 0x76000000n, size: 0x100000, timestamp: 2 },
];

interface RandomStack {
  bytes: Buffer;
  /** Captured stretches of the stack, [start, end) offsets: the rest reads as not captured. */
  holes: Array<[number, number]>;
  registers: Record<string, bigint>;
  frameData: Map<number, X86FrameData>;
  cfi: Map<number, CfiRules>;
  maxReads: number;
}

function randomStack(seed: number): RandomStack {
  const next = xorshift32(seed);
  const pick = (n: number): number => next() % n;
  const code = (): number => (pick(2) === 0 ? 0x401000 + pick(0xe000) : 0x76001000 + pick(0xf0000));
  const bytes = Buffer.alloc(STACK_SIZE);
  // A chain of frames going up the stack, with noise words between them.
  let at = 0x100 + pick(0x40) * 4;
  const firstEbp = STACK_LOW + at;
  while (at + 0xd0 < STACK_SIZE) {
    const nextAt = at + 8 + pick(0x30) * 4;
    const broken = pick(10) === 0;
    bytes.writeUInt32LE(broken ? next() : STACK_LOW + nextAt, at);
    bytes.writeUInt32LE(pick(8) === 0 ? next() : code(), at + 4);
    for (let w = at + 8; w < nextAt; w += 4) {
      bytes.writeUInt32LE(pick(3) === 0 ? code() : next(), w);
    }
    at = nextAt;
  }
  const holes: Array<[number, number]> = [];
  for (let i = pick(3); i > 0; i--) {
    const start = pick(STACK_SIZE / 4) * 4;
    holes.push([start, start + 4 + pick(0x200)]);
  }
  const frameData = new Map<number, X86FrameData>();
  const cfi = new Map<number, CfiRules>();
  for (let i = 0; i < 40; i++) {
    const rva = 0x1000 + pick(0x380) * 0x40;
    if (pick(2) === 0) {
      frameData.set(rva, {
        type: pick(2) === 0 ? 0 : 4,
        rva,
        codeSize: 0x40,
        prologSize: 3,
        epilogSize: 2,
        parameterSize: pick(4) * 4,
        savedRegisterSize: pick(4) * 4,
        localSize: pick(8) * 4,
        allocatesBasePointer: pick(2) === 0,
        ...(pick(2) === 0
          ? { programString: '$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =' }
          : {}),
      });
    } else {
      cfi.set(rva, {
        cfa: '$esp 4 +',
        ra: '.cfa 4 - ^',
        registers: pick(2) === 0 ? { $ebp: '.cfa 8 - ^' } : {},
      });
    }
  }
  return {
    bytes,
    holes,
    registers: {
      eip: BigInt(code()),
      esp: BigInt(STACK_LOW + pick(0x40) * 4),
      ebp: BigInt(pick(12) === 0 ? next() : firstEbp),
      eax: BigInt(next()),
    },
    frameData,
    cfi,
    maxReads: pick(3) === 0 ? 1 + pick(12) : 4096,
  };
}

function readStack(stack: RandomStack, address: bigint, length: number): Uint8Array | null {
  const at = Number(address) - STACK_LOW;
  if (at < 0 || at >= STACK_SIZE) return null;
  for (const [start, end] of stack.holes) if (at < end && at + length > start) return null;
  return stack.bytes.subarray(at, Math.min(STACK_SIZE, at + length));
}

/** The frame data or CFI of the function at `rva` of app.exe (functions are 0x40 bytes). */
function near<T>(table: Map<number, T>, module: ModuleRef, rva: number): T | undefined {
  if (module.name !== 'app.exe') return undefined;
  return table.get(rva - (rva % 0x40));
}

function walkOf(stack: RandomStack, atOnce: boolean): Promise<StackWalk> {
  const memory: TargetMemory = {
    read: (address, length) => Promise.resolve(readStack(stack, address, length)),
    ...(atOnce ? { readNow: (address, length) => readStack(stack, address, length) } : {}),
  };
  const frameOf = (module: ModuleRef, rva: number) => near(stack.frameData, module, rva);
  const cfiOf = (module: ModuleRef, rva: number) => near(stack.cfi, module, rva);
  const unwind: UnwindProvider = atOnce
    ? { x86Frame: frameOf, cfi: cfiOf }
    : {
        x86Frame: (module, rva) => Promise.resolve(frameOf(module, rva)),
        cfi: (module, rva) => Promise.resolve(cfiOf(module, rva)),
      };
  return walkStack({
    arch: 'x86',
    threadId: 1,
    registers: { ...stack.registers },
    stack: { low: BigInt(STACK_LOW), high: BigInt(STACK_LOW + STACK_SIZE) },
    memory,
    modules: MODULES,
    unwind,
    limits: { maxReads: stack.maxReads, maxFrames: 64, maxScanBytes: 0x400 },
  });
}

describe('x86 caller step without promises', () => {
  it('walks seeded random stacks exactly as the asynchronous path does', async () => {
    const trusts = new Set<string>();
    for (let seed = 1; seed <= 300; seed++) {
      const stack = randomStack(seed);
      const slow = await walkOf(stack, false);
      const fast = await walkOf(stack, true);
      expect(fast, `seed ${seed}`).to.deep.equal(slow);
      for (const frame of slow.frames) trusts.add(frame.trust);
    }
    // The stacks reach every x86 unwinder, so each path was compared.
    expect([...trusts].sort()).to.include.members(['cfi', 'context', 'frame-pointer', 'scan']);
  });
});
