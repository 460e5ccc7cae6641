// The x64 unwinder on hand-made UNWIND_INFO (helpers/fake-image.ts): each test builds the stack a
// documented prologue would leave and checks the caller's registers the unwind codes give back.
import { expect } from 'chai';
import { unwindAmd64 } from '../../src/stackwalk/amd64-unwind.js';
import { WalkMemory } from '../../src/stackwalk/walk-memory.js';
import { FakeImage, FakeMemory } from './helpers/fake-image.js';

const BASE = 0x140000000n;
const RET = 0x140002345n;
// Unwind op codes (winnt.h UNWIND_CODE_OPS).
const PUSH_NONVOL = 0;
const ALLOC_LARGE = 1;
const ALLOC_SMALL = 2;
const SET_FPREG = 3;
const SAVE_NONVOL = 4;
const PUSH_MACHFRAME = 10;
const RBX = 3;
const RBP = 5;
const RSI = 6;
const CHAININFO = 4;

/**
 * `push rbp; push rbx; sub rsp, 0x28; lea rbp, [rsp+0x20]` at 0x1000 (ends at offsets 1, 2, 6,
 * 11), entered with RSP = 0x10000 holding the return address.
 */
function framed(): { image: FakeImage; memory: FakeMemory } {
  const image = new FakeImage(0x9000);
  image.fn(0x1000, 0x1100, image.unwindInfo(0x8000, {
    prolog: 11,
    frameReg: RBP,
    frameOffset: 2,
    codes: [
      [11, SET_FPREG, 0],
      [6, ALLOC_SMALL, (0x28 - 8) / 8],
      [2, PUSH_NONVOL, RBX],
      [1, PUSH_NONVOL, RBP],
    ],
  })); // prettier-ignore
  const memory = new FakeMemory();
  memory.range(0xe000n, 0x3000);
  memory.u64(0x10000n, RET).u64(0xfff8n, 0xbbbbn).u64(0xfff0n, 0xcccn);
  return { image, memory };
}

const walkMemory = (memory: FakeMemory) => new WalkMemory(memory, 1000);

describe('x64 unwind codes (.xdata)', () => {
  it('undoes pushes, an allocation and the frame register, even after an alloca moved RSP', async () => {
    const { image, memory } = framed();
    const out = await unwindAmd64(
      image,
      BASE,
      { rip: BASE + 0x1080n, rsp: 0xe800n, rbp: 0xffe8n, rbx: 1n },
      walkMemory(memory),
      true,
    );
    expect(out.kind).to.equal('unwound');
    if (out.kind !== 'unwound') return;
    expect(out.registers).to.include({ rip: RET, rsp: 0x10008n, rbp: 0xbbbbn, rbx: 0xcccn });
  });

  it('inside the prologue applies only the codes whose instructions ran', async () => {
    const { image, memory } = framed();
    // After `push rbp` (offset 1), before `push rbx`: RSP = 0xfff8.
    const out = await unwindAmd64(
      image,
      BASE,
      { rip: BASE + 0x1001n, rsp: 0xfff8n, rbp: 0x77n, rbx: 0x99n },
      walkMemory(memory),
      true,
    );
    if (out.kind !== 'unwound') throw new Error(out.reason);
    expect(out.registers).to.include({ rip: RET, rsp: 0x10008n, rbp: 0xbbbbn, rbx: 0x99n });
  });

  it('runs the rest of an epilogue at frame 0 instead of the codes', async () => {
    const { image, memory } = framed();
    // add rsp, 0x28; pop rbx; pop rbp; ret
    image.bytes.set([0x48, 0x83, 0xc4, 0x28, 0x5b, 0x5d, 0xc3], 0x10f0);
    const out = await unwindAmd64(
      image,
      BASE,
      // RBP already points elsewhere: the codes (which use it) would go wrong here.
      { rip: BASE + 0x10f0n, rsp: 0xffc8n, rbp: 0x5n, rbx: 1n },
      walkMemory(memory),
      true,
    );
    if (out.kind !== 'unwound') throw new Error(out.reason);
    expect(out.how).to.equal('epilog');
    expect(out.registers).to.include({ rip: RET, rsp: 0x10008n, rbp: 0xbbbbn, rbx: 0xcccn });
  });

  it('reads registers saved with mov (SAVE_NONVOL) and large allocations', async () => {
    const image = new FakeImage(0x9000);
    // sub rsp, 0x1000 (ALLOC_LARGE, size/8 in one slot); mov [rsp+0x1008], rsi
    image.fn(0x2000, 0x2100, image.unwindInfo(0x8000, {
      prolog: 15,
      codes: [
        [15, SAVE_NONVOL, RSI, 0x1008 / 8],
        [7, ALLOC_LARGE, 0, 0x1000 / 8],
      ],
    })); // prettier-ignore
    const memory = new FakeMemory();
    memory.range(0xe000n, 0x3000);
    memory.u64(0x10000n, RET).u64(0x10008n, 0x5151n);
    const out = await unwindAmd64(
      image,
      BASE,
      { rip: BASE + 0x2040n, rsp: 0xf000n, rsi: 0n },
      walkMemory(memory),
      false,
    );
    if (out.kind !== 'unwound') throw new Error(out.reason);
    expect(out.registers).to.include({ rip: RET, rsp: 0x10008n, rsi: 0x5151n });
  });

  it('follows chained unwind info to the parent function', async () => {
    const image = new FakeImage(0x9000);
    const parent = image.fn(0x3000, 0x3010, image.unwindInfo(0x8100, {
      prolog: 1,
      codes: [[1, PUSH_NONVOL, RBX]],
    })); // prettier-ignore
    image.fn(0x3010, 0x3080, image.unwindInfo(0x8000, {
      flags: CHAININFO,
      prolog: 4,
      codes: [[4, ALLOC_SMALL, 1]], // sub rsp, 0x10
      chain: parent,
    })); // prettier-ignore
    const memory = new FakeMemory();
    memory.range(0xe000n, 0x3000);
    memory.u64(0x10000n, RET).u64(0xfff8n, 0x3333n);
    const out = await unwindAmd64(
      image,
      BASE,
      { rip: BASE + 0x3050n, rsp: 0xffe8n, rbx: 0n },
      walkMemory(memory),
      false,
    );
    if (out.kind !== 'unwound') throw new Error(out.reason);
    expect(out.registers).to.include({ rip: RET, rsp: 0x10008n, rbx: 0x3333n });
  });

  it('takes RIP and RSP from a machine frame (an interrupt or exception dispatcher)', async () => {
    const image = new FakeImage(0x9000);
    image.fn(0x4000, 0x4100, image.unwindInfo(0x8000, { codes: [[0, PUSH_MACHFRAME, 0]] }));
    const memory = new FakeMemory();
    memory.range(0xe000n, 0x3000);
    memory.u64(0xf000n, RET).u64(0xf018n, 0xfa00n);
    const out = await unwindAmd64(
      image,
      BASE,
      { rip: BASE + 0x4010n, rsp: 0xf000n },
      walkMemory(memory),
      true,
    );
    if (out.kind !== 'unwound') throw new Error(out.reason);
    expect(out.how).to.equal('machine-frame');
    expect(out.registers).to.include({ rip: RET, rsp: 0xfa00n });
  });

  it('treats a function without unwind data as a leaf: return address at RSP', async () => {
    const image = new FakeImage(0x9000);
    const memory = new FakeMemory();
    memory.range(0xe000n, 0x3000);
    memory.u64(0xf000n, RET);
    const out = await unwindAmd64(
      image,
      BASE,
      { rip: BASE + 0x5000n, rsp: 0xf000n },
      walkMemory(memory),
      true,
    );
    if (out.kind !== 'unwound') throw new Error(out.reason);
    expect(out.how).to.equal('leaf');
    expect(out.registers).to.include({ rip: RET, rsp: 0xf008n });
  });

  it('fails (never throws) on unknown codes, cut code arrays and stack it cannot read', async () => {
    const image = new FakeImage(0x9000);
    image.fn(0x6000, 0x6100, image.unwindInfo(0x8000, { codes: [[0, 11, 0]] }));
    image.fn(0x6100, 0x6200, image.unwindInfo(0x8100, { codes: [[2, PUSH_NONVOL, RBX]] }));
    image.bytes[0x8102] = 40; // claims 40 code slots: past the code array's real content
    image.fn(0x6200, 0x6300, 0x8ff0); // unwind info at the end of the image: cut
    const memory = new FakeMemory();
    memory.range(0xe000n, 0x100);
    for (const rip of [0x6010n, 0x6110n, 0x6210n]) {
      const out = await unwindAmd64(
        image,
        BASE,
        { rip: BASE + rip, rsp: 0xf000n },
        walkMemory(memory),
        false,
      );
      expect(out.kind, `rip +0x${rip.toString(16)}`).to.equal('failed');
    }
  });
});
