// x86 walking on synthetic dumps built from the documented frame layouts (helpers/x86-dump.ts):
// an EBP chain, an FPO function described by frame data (as a PDB or a Breakpad `STACK WIN`
// record would give it), a `STACK WIN 4` program string, and a chain broken by a garbage EBP,
// which a bounded scan recovers from.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UnwindProvider, X86FrameData } from '../../src/stackwalk/types.js';
import { walkedStacks, type WalkedStacks as DumpStacks } from '../helpers/walked-stacks.js';
import { StackWriter, writeX86Dump, type X86DumpSpec } from './helpers/x86-dump.js';

const APP = { name: 'app.exe', base: 0x400000, size: 0x10000 };
const KERNEL32 = { name: 'kernel32.dll', base: 0x76000000, size: 0x100000 };
const STACK_BASE = 0x12f000;

/** h ← g ← f ← main ← kernel32, each with a `push ebp; mov ebp, esp` frame. */
function ebpChain(): StackWriter {
  return new StackWriter(STACK_BASE, 0x1000)
    .put(0x12f110, 0x12f130) // h's frame: saved EBP of g
    .put(0x12f114, 0x401234) //            return into g
    .put(0x12f130, 0x12f150) // g's frame
    .put(0x12f134, 0x401345) //            return into f
    .put(0x12f150, 0x12f170) // f's frame
    .put(0x12f154, 0x401456) //            return into main
    .put(0x12f170, 0) //        main's frame: EBP 0 ends the chain
    .put(0x12f174, 0x76001234); //         return into kernel32
}

const CHAIN = ['0x401010', '0x401234', '0x401345', '0x401456', '0x76001234'];

describe('x86 stack walk (synthetic dumps)', function () {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'cdbh-x86-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function walk(
    spec: X86DumpSpec,
    unwind?: UnwindProvider,
    threadBudgetMs?: number,
  ): Promise<DumpStacks> {
    const path = writeX86Dump(dir, `x86-${Math.random().toString(16).slice(2)}.dmp`, spec);
    return walkedStacks(
      path,
      {
        ...(unwind === undefined ? {} : { unwind }),
        ...(threadBudgetMs === undefined ? {} : { threadBudgetMs }),
      },
      { recordedPaths: false },
    );
  }

  it('follows the EBP chain to the thread start', async () => {
    const stacks = await walk({
      modules: [APP, KERNEL32],
      stack: { base: STACK_BASE, bytes: ebpChain().bytes },
      registers: { eip: 0x401010, esp: 0x12f100, ebp: 0x12f110 },
    });
    expect(stacks.arch).to.equal('x86');
    const stack = stacks.stacks[0];
    expect(stack?.frames.map((f) => f.address)).to.deep.equal(CHAIN);
    expect(stack?.frames.map((f) => f.trust)).to.deep.equal([
      'context',
      'frame-pointer',
      'frame-pointer',
      'frame-pointer',
      'frame-pointer',
    ]);
    expect(stack?.frames.map((f) => f.stackPointer).slice(1)).to.deep.equal([
      '0x12f118',
      '0x12f138',
      '0x12f158',
      '0x12f178',
    ]);
    expect(stack?.frames[1]?.label).to.equal('app+0x1234');
    expect(stack?.stop).to.equal('end');
    expect(stack?.warnings).to.deep.equal([]);
    expect(stacks.exceptionRegisters).to.include({ eip: '0x401010', esp: '0x12f100' });
  });

  it('unwinds an FPO function from its frame data, where the EBP chain would skip its caller', async () => {
    // fpo_leaf (app+0x1800) keeps g's EBP; its return address is above 8 bytes of locals and one
    // saved register: at esp + 8 + 4.
    const stack = ebpChain().put(0x12f0fc, 0x401234);
    const spec: X86DumpSpec = {
      modules: [APP, KERNEL32],
      stack: { base: STACK_BASE, bytes: stack.bytes },
      registers: { eip: 0x401800, esp: 0x12f0f0, ebp: 0x12f130 },
    };
    const fpo: X86FrameData = {
      type: 0,
      rva: 0x1800,
      codeSize: 0x40,
      prologSize: 4,
      epilogSize: 2,
      parameterSize: 0,
      savedRegisterSize: 4,
      localSize: 8,
      allocatesBasePointer: false,
    };
    const asked: number[] = [];
    const provider: UnwindProvider = {
      x86Frame: (module, rva) => {
        asked.push(rva);
        return module.name === 'app.exe' && rva >= 0x1800 && rva < 0x1840 ? fpo : undefined;
      },
    };
    const without = await walk(spec);
    expect(without.stacks[0]?.frames.map((f) => f.address)).to.deep.equal([
      '0x401800',
      '0x401345',
      '0x401456',
      '0x76001234',
    ]);
    const withData = await walk(spec, provider);
    const frames = withData.stacks[0]?.frames ?? [];
    expect(frames.map((f) => f.address)).to.deep.equal(['0x401800', ...CHAIN.slice(1)]);
    expect(frames[1]?.trust).to.equal('cfi');
    expect(frames[2]?.trust).to.equal('frame-pointer');
    expect(asked[0]).to.equal(0x1800); // frame 0 is looked up at its own address
    expect(asked[1]).to.equal(0x1233); // callers at the return address - 1
  });

  it('runs a STACK WIN 4 program string', async () => {
    const program = '$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =';
    const provider: UnwindProvider = {
      x86Frame: (module) =>
        module.name === 'app.exe'
          ? {
              type: 4,
              rva: 0,
              codeSize: 0x10000,
              prologSize: 3,
              epilogSize: 1,
              parameterSize: 0,
              savedRegisterSize: 0,
              localSize: 0,
              allocatesBasePointer: true,
              programString: program,
            }
          : undefined,
    };
    const stacks = await walk(
      {
        modules: [APP, KERNEL32],
        stack: { base: STACK_BASE, bytes: ebpChain().bytes },
        registers: { eip: 0x401010, esp: 0x12f100, ebp: 0x12f110 },
      },
      provider,
    );
    const frames = stacks.stacks[0]?.frames ?? [];
    expect(frames.map((f) => f.address)).to.deep.equal(CHAIN);
    expect(frames.slice(1, 4).map((f) => f.trust)).to.deep.equal(['cfi', 'cfi', 'cfi']);
  });

  it('recovers from a broken chain by scanning, and says which frames were scanned', async () => {
    const stack = ebpChain().put(0x12f150, 0xdeadbeef); // main's EBP, saved by f, is garbage
    const stacks = await walk({
      modules: [APP, KERNEL32],
      stack: { base: STACK_BASE, bytes: stack.bytes },
      registers: { eip: 0x401010, esp: 0x12f100, ebp: 0x12f110 },
    });
    const frames = stacks.stacks[0]?.frames ?? [];
    expect(frames.map((f) => f.address)).to.deep.equal(CHAIN);
    expect(frames.map((f) => f.trust)).to.deep.equal([
      'context',
      'frame-pointer',
      'frame-pointer',
      'frame-pointer',
      'scan',
    ]);
    // After a scanned frame nothing says where the chain ends: the walk runs out with a warning.
    expect(stacks.stacks[0]?.stop).to.equal('lost');
    expect(stacks.stacks[0]?.warnings.join(' ')).to.match(/no caller found for frame 4/);
  });

  it('ends with a warning, not an error, when EBP points outside the captured stack', async () => {
    const stacks = await walk({
      modules: [APP],
      stack: { base: STACK_BASE, bytes: Buffer.alloc(0x100) },
      registers: { eip: 0x401010, esp: 0x12f000, ebp: 0x7fff0000 },
    });
    const stack = stacks.stacks[0];
    expect(stack?.frames).to.have.length(1);
    expect(stack?.stop).to.equal('lost');
    expect(stack?.warnings.join(' ')).to.match(/no caller found for frame 0/);
  });

  it('ends a walk that runs out of its time budget with a warning', async () => {
    const stacks = await walk(
      {
        modules: [APP, KERNEL32],
        stack: { base: STACK_BASE, bytes: ebpChain().bytes },
        registers: { eip: 0x401010, esp: 0x12f100, ebp: 0x12f110 },
      },
      undefined,
      -1, // already spent
    );
    const stack = stacks.stacks[0];
    expect(stack?.frames.map((f) => f.address)).to.deep.equal(['0x401010']);
    expect(stack?.stop).to.equal('budget');
    expect(stack?.warnings.join(' ')).to.match(/time budget spent after 1 frames/);
  });
});
