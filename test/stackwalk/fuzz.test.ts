// Corrupt stacks end the walk with a warning in bounded work, never an error or a hang: random
// stack words (with images whose unwind data is random too), an EBP chain that points at itself,
// a machine frame that sends the stack pointer down, and an allocation of 4 GB. A seeded PRNG
// makes every run the same; the bounds checked are the walker's own (frames, reads).
import { expect } from 'chai';
import type { ModuleRef, StackWalk, WalkInput } from '../../src/stackwalk/types.js';
import { walkStack } from '../../src/stackwalk/walk.js';
import { CODE_READ_SHARE } from '../../src/stackwalk/walk-memory.js';
import { FakeImage, FakeMemory } from './helpers/fake-image.js';
import { xorshift32 } from '../helpers/seeded-random.js';

const MODULE: ModuleRef = {
  name: 'app.exe',
  path: 'C:\\app.exe',
  base: 0x140000000n,
  size: 0x9000,
  timestamp: 1,
};
const STACK_LOW = 0x100000n;
const STACK_SIZE = 0x4000;
const MAX_FRAMES = 64;
const MAX_READS = 512;

function check(walk: StackWalk, memory: FakeMemory): void {
  expect(walk.frames.length).to.be.within(1, MAX_FRAMES);
  // Each WalkMemory read is one TargetMemory read; the budget bounds them (stack reads, and the
  // code reads of scanned words' call checks, a share of their own).
  expect(memory.reads).to.be.at.most(MAX_READS + MAX_READS / CODE_READ_SHARE);
  for (let i = 1; i < walk.frames.length; i++) {
    expect(walk.frames[i]!.stackPointer > walk.frames[i - 1]!.stackPointer, `frame ${i} sp grows`)
      .to.be.true;
  }
  if (walk.stop !== 'end') expect(walk.warnings.length, `stop ${walk.stop}`).to.be.greaterThan(0);
}

function input(
  arch: 'amd64' | 'x86',
  memory: FakeMemory,
  registers: WalkInput['registers'],
  image?: FakeImage,
): WalkInput {
  return {
    arch,
    threadId: 1,
    registers,
    memory,
    modules: [MODULE],
    stack: { low: STACK_LOW, high: STACK_LOW + BigInt(STACK_SIZE) },
    ...(image === undefined ? {} : { images: { image: () => Promise.resolve(image) } }),
    limits: { maxFrames: MAX_FRAMES, maxReads: MAX_READS, maxScanBytes: 2048 },
  };
}

describe('stack walk on corrupt stacks (fuzz)', function () {
  this.timeout(20_000);

  for (const arch of ['amd64', 'x86'] as const) {
    it(`${arch}: 200 random stacks (x64: random unwind data too) each end with a bounded walk`, async () => {
      const next = xorshift32(arch === 'amd64' ? 0x1234 : 0x5678);
      for (let run = 0; run < 200; run++) {
        const memory = new FakeMemory();
        const stack = memory.range(STACK_LOW, STACK_SIZE);
        const view = new DataView(stack.buffer);
        for (let at = 0; at < STACK_SIZE; at += 4) {
          // Half the words point into the module, so the unwinders and the scan have work.
          const word =
            next() % 2 === 0 ? Number(MODULE.base & 0xffffffffn) + (next() % 0x9000) : next();
          view.setUint32(at, word >>> 0, true);
          if (arch === 'amd64' && at % 8 === 4)
            view.setUint32(at, next() % 2 === 0 ? 1 : next(), true);
        }
        const image = new FakeImage(0x9000);
        for (let i = 0; i < image.bytes.length; i++) image.bytes[i] = next() & 0xff;
        for (let f = 0; f < 16; f++) {
          const begin = 0x1000 + f * 0x400;
          image.fn(begin, begin + 0x400, 0x8000 + (next() % 0xff0));
        }
        const ip = MODULE.base + BigInt(0x1000 + (next() % 0x4000));
        const sp = STACK_LOW + BigInt((next() % 0x100) * 8);
        const registers =
          arch === 'amd64'
            ? { rip: ip, rsp: sp, rbp: STACK_LOW + BigInt(next() % STACK_SIZE) }
            : { eip: ip & 0xffffffffn, esp: sp, ebp: STACK_LOW + BigInt(next() % STACK_SIZE) };
        const modules =
          arch === 'x86' ? [{ ...MODULE, base: MODULE.base & 0xffffffffn }] : [MODULE];
        const walk = await walkStack({
          ...input(arch, memory, registers, arch === 'amd64' ? image : undefined),
          modules,
        });
        check(walk, memory);
      }
    });
  }

  it('x86: an EBP that points at itself does not loop', async () => {
    const memory = new FakeMemory();
    memory.range(STACK_LOW, STACK_SIZE);
    const ebp = STACK_LOW + 0x100n;
    const bytes = (await memory.read(STACK_LOW, STACK_SIZE))!;
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(0x100, Number(ebp), true);
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(0x104, 0x40001010, true);
    const modules = [{ ...MODULE, base: 0x40000000n }];
    const walk = await walkStack({
      ...input('x86', memory, { eip: 0x40001000n, esp: STACK_LOW + 0x80n, ebp }),
      modules,
    });
    check(walk, memory);
    expect(walk.frames.length).to.be.lessThan(4);
  });

  it('amd64: a machine frame that sends RSP down, and a 4 GB allocation, end with a warning', async () => {
    const image = new FakeImage(0x9000);
    image.fn(0x1000, 0x1100, image.unwindInfo(0x8000, { codes: [[0, 10, 0]] })); // PUSH_MACHFRAME
    image.fn(0x2000, 0x2100, image.unwindInfo(0x8100, { codes: [[0, 1, 1, 0xffff, 0xffff]] })); // ALLOC_LARGE 4 GB
    for (const rip of [0x1010n, 0x2010n]) {
      const memory = new FakeMemory();
      memory.range(STACK_LOW, STACK_SIZE);
      memory.u64(STACK_LOW + 0x200n, MODULE.base + 0x2010n); // machine frame RIP
      memory.u64(STACK_LOW + 0x218n, STACK_LOW + 0x10n); // machine frame RSP: below
      const walk = await walkStack(
        input('amd64', memory, { rip: MODULE.base + rip, rsp: STACK_LOW + 0x200n }, image),
      );
      check(walk, memory);
      expect(walk.stop).to.not.equal('end');
    }
  });
});
