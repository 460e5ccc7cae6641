// The walker's plausibility rules on hand-built stacks (memory served from a buffer, modules
// without images, as most dumps users get): x64 STACK CFI from a Breakpad .sym, scanned words
// checked against the functions a symbol file knows, the leaf-function frame on x64, the walk's
// end at the thread's start routine, and x86 frame data on a scanned frame falling back to a
// scan. Each expectation is the frame the stack was built to hold; each case also holds decoys
// (module words that are not return addresses) that the rule under test must reject.
import { expect } from 'chai';
import { BreakpadSymbols } from '../../src/symbols/breakpad-sym.js';
import { walkStack } from '../../src/stackwalk/walk.js';
import type {
  ModuleRef,
  StackWalk,
  SymbolHit,
  SymbolProvider,
  TargetMemory,
  UnwindProvider,
  WalkInput,
} from '../../src/stackwalk/types.js';

/** A stack image addressed by virtual address, little-endian words. */
class Stack implements TargetMemory {
  readonly bytes: Buffer;
  constructor(
    readonly base: bigint,
    size: number,
  ) {
    this.bytes = Buffer.alloc(size);
  }
  put64(address: bigint, value: bigint): this {
    this.bytes.writeBigUInt64LE(value, Number(address - this.base));
    return this;
  }
  put32(address: bigint, value: bigint): this {
    this.bytes.writeUInt32LE(Number(value), Number(address - this.base));
    return this;
  }
  read(address: bigint, length: number): Promise<Uint8Array | null> {
    const at = Number(address - this.base);
    if (at < 0 || at >= this.bytes.length) return Promise.resolve(null);
    return Promise.resolve(this.bytes.subarray(at, Math.min(this.bytes.length, at + length)));
  }
  get bounds() {
    return { low: this.base, high: this.base + BigInt(this.bytes.length) };
  }
}

function module(name: string, base: bigint, size: number): ModuleRef {
  return { name, path: `C:\\app\\${name}`, base, size, timestamp: 0x5f000000 };
}

/** Names from a parsed .sym (FUNC ranges), for the modules it is given for. */
function symProvider(files: Map<string, BreakpadSymbols>): SymbolProvider & UnwindProvider {
  return {
    async lookup(m, rva): Promise<SymbolHit | undefined> {
      const hit = await files.get(m.name)?.lookup(rva);
      return hit === undefined ? undefined : { function: hit.function, offset: hit.functionOffset };
    },
    covers: (m) => files.has(m.name),
    cfi: (m, rva) => files.get(m.name)?.stack.cfiRulesAt(rva),
  };
}

function sym(text: string): Promise<BreakpadSymbols> {
  return BreakpadSymbols.parse(Buffer.from(text.trim().replace(/^ +/gm, '') + '\n'), 't.sym');
}

const frames = (walk: StackWalk) =>
  walk.frames.map((f) => `${f.symbol?.function ?? f.module?.name ?? '?'}:${f.trust}`);

describe('stack walk heuristics (synthetic stacks, no images)', () => {
  const APP64 = module('app.exe', 0x140000000n, 0x10000);
  // crash_here (leaf of the chain) ← foo ← main, each with CFI; .rdata at 0x6000 holds strings.
  const APP64_SYM = `
    MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 app.pdb
    FUNC 1000 40 0 crash_here
    FUNC 1100 60 0 foo
    FUNC 1200 80 0 main
    STACK CFI INIT 1000 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^
    STACK CFI INIT 1100 60 .cfa: $rsp 48 + .ra: .cfa -8 + ^
    STACK CFI INIT 1200 80 .cfa: $rsp 48 + .ra: .cfa -8 + ^ $rbx: .cfa -16 + ^
  `;

  function x64Stack(): Stack {
    const s = new Stack(0x7ff000n, 0x400);
    // crash_here's frame: the return into foo at RSP (no locals).
    s.put64(0x7ff100n, 0x14000112an);
    // foo's frame (CFA = RSP + 48): locals holding three pointers into .rdata, then the return.
    s.put64(0x7ff108n, 0x140006010n).put64(0x7ff110n, 0x140006020n).put64(0x7ff118n, 0x140006030n);
    s.put64(0x7ff130n, 0x140001234n);
    // main's frame (CFA = RSP + 48): saved RBX at CFA-16, a return address of 0 at CFA-8 (the
    // thread's first function).
    s.put64(0x7ff158n, 0xbbbbn).put64(0x7ff160n, 0n);
    return s;
  }

  function x64Input(stack: Stack, provider?: SymbolProvider & UnwindProvider): WalkInput {
    return {
      arch: 'amd64',
      threadId: 1,
      registers: { rip: 0x14000101an, rsp: 0x7ff100n, rbx: 0xaaaan },
      stack: stack.bounds,
      memory: stack,
      modules: [APP64],
      ...(provider === undefined ? {} : { unwind: provider, symbols: provider }),
    };
  }

  it('x64: unwinds by a .sym file’s STACK CFI where the image is missing', async () => {
    const provider = symProvider(new Map([['app.exe', await sym(APP64_SYM)]]));
    const walk = await walkStack(x64Input(x64Stack(), provider));
    expect(frames(walk)).to.deep.equal(['crash_here:context', 'foo:cfi', 'main:cfi']);
    expect(walk.frames.map((f) => f.address)).to.deep.equal([
      0x14000101an,
      0x14000112an,
      0x140001234n,
    ]);
    expect(walk.stop).to.equal('end');
  });

  it('x64: a scanned word must fall inside a function the symbol file knows', async () => {
    // The same .sym without STACK CFI: the walk scans, and the .rdata pointers are no frames.
    const names = await sym(APP64_SYM.replace(/^\s*STACK.*$/gm, ''));
    const walk = await walkStack(x64Input(x64Stack(), symProvider(new Map([['app.exe', names]]))));
    expect(frames(walk)).to.deep.equal(['crash_here:context', 'foo:leaf', 'main:scan']);
    // Without symbols the scan cannot tell the strings from return addresses.
    const blind = await walkStack(x64Input(x64Stack()));
    expect(blind.frames.map((f) => f.address).slice(2, 5)).to.deep.equal([
      0x140006010n,
      0x140006020n,
      0x140006030n,
    ]);
  });

  it('x64: frame 0 without unwind data returns through the word at RSP as a leaf', async () => {
    const walk = await walkStack(x64Input(x64Stack()));
    expect(walk.frames[1]?.trust).to.equal('leaf');
    expect(walk.frames[1]?.address).to.equal(0x14000112an);
    // Frame 2 is found by scanning (no CFI, no image): scan, never leaf.
    expect(walk.frames[2]?.trust).to.equal('scan');
  });

  it('ends the walk at the thread’s start routine, leaving older words on the stack alone', async () => {
    const NTDLL = module('ntdll.dll', 0x7ffa0000_0000n, 0x200000);
    const KERNEL32 = module('kernel32.dll', 0x7ff90000_0000n, 0x100000);
    const s = new Stack(0x7ff000n, 0x400);
    s.put64(0x7ff100n, 0x7ff900017034n); // into BaseThreadInitThunk
    s.put64(0x7ff130n, 0x7ffa00052651n); // into RtlUserThreadStart
    s.put64(0x7ff180n, 0x14000112an); // a stale word above the start routine's frame
    s.put64(0x7ff1a0n, 0x7ffa00052651n);
    const names = new Map([
      [
        'ntdll.dll',
        await sym(`MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 ntdll.pdb
             PUBLIC 52620 0 RtlUserThreadStart
             PUBLIC 52700 0 RtlpNext`),
      ],
      [
        'kernel32.dll',
        await sym(`MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 kernel32.pdb
             PUBLIC 17010 0 BaseThreadInitThunk
             PUBLIC 17100 0 Next`),
      ],
      ['app.exe', await sym(APP64_SYM.replace(/^\s*STACK.*$/gm, ''))],
    ]);
    const provider = symProvider(names);
    const walk = await walkStack({
      arch: 'amd64',
      threadId: 2,
      registers: { rip: 0x140001210n, rsp: 0x7ff0f8n },
      stack: s.bounds,
      memory: s,
      modules: [APP64, NTDLL, KERNEL32],
      unwind: provider,
      symbols: provider,
    });
    expect(frames(walk)).to.deep.equal([
      'main:context',
      'BaseThreadInitThunk:scan',
      'RtlUserThreadStart:scan',
    ]);
    expect(walk.stop).to.equal('end');
    expect(walk.warnings).to.deep.equal([]);
  });

  it('x86: frame data applied to a scanned frame that leads nowhere falls back to scanning', async () => {
    const APP = module('app.exe', 0x400000n, 0x10000);
    const s = new Stack(0x12f000n, 0x400);
    // Frame 0 has a garbage EBP (below ESP): no chain, so a scan finds f at 0x12f104.
    s.put32(0x12f104n, 0x401105n); // return into f (0x401100..)
    // f's STACK WIN says its return address is 8 bytes up: that slot holds 0x0bad (no module).
    s.put32(0x12f110n, 0x0badn);
    // The real callers further up, found by scanning from f's stack pointer.
    s.put32(0x12f120n, 0x401205n); // into g
    s.put32(0x12f140n, 0x401305n); // into main
    const names = await sym(`MODULE windows x86 0123456789ABCDEF0123456789ABCDEF1 app.pdb
      FUNC 1000 80 0 crash
      FUNC 1100 80 0 f
      FUNC 1200 80 0 g
      FUNC 1300 80 0 main
      STACK WIN 4 1100 80 0 0 0 0 8 0 1 $T0 .raSearch = $eip $T0 ^ = $esp $T0 4 + =`);
    const provider: SymbolProvider & UnwindProvider = {
      ...symProvider(new Map([['app.exe', names]])),
      x86Frame: async (_m, rva) => {
        const win = await names.stack.winAt(rva);
        return win === undefined
          ? undefined
          : {
              type: win.type,
              rva: win.rva,
              codeSize: win.codeSize,
              prologSize: 0,
              epilogSize: 0,
              parameterSize: 0,
              savedRegisterSize: 0,
              localSize: win.localSize,
              allocatesBasePointer: false,
              ...(win.programString === undefined ? {} : { programString: win.programString }),
            };
      },
    };
    const walk = await walkStack({
      arch: 'x86',
      threadId: 3,
      registers: { eip: 0x401010n, esp: 0x12f100n, ebp: 0x10n },
      stack: s.bounds,
      memory: s,
      modules: [APP],
      unwind: provider,
      symbols: provider,
    });
    expect(frames(walk)).to.deep.equal(['crash:context', 'f:scan', 'g:scan', 'main:scan']);
  });

  it('x64: continues from a CONTEXT record on the stack (an exception frame), not its words', async () => {
    const build = (cs: number) => {
      const s = new Stack(0x7ff000n, 0x400);
      // A CONTEXT at 0x7ff200 (winnt.h AMD64 layout): P1Home holds an .rdata pointer, the
      // record's RIP is inside main and its RSP points above the record.
      const at = 0x7ff200n;
      s.put64(at, 0x140006010n);
      s.bytes.writeUInt32LE(0x10001f, Number(at - s.base) + 0x30); // CONTEXT_AMD64 | FULL
      s.bytes.writeUInt16LE(cs, Number(at - s.base) + 0x38); // SegCs
      s.bytes.writeUInt16LE(0x2b, Number(at - s.base) + 0x42); // SegSs
      s.put64(at + 0x98n, 0x7ff380n); // Rsp
      s.put64(at + 0xa0n, 0x7ff3a0n); // Rbp
      s.put64(at + 0xf8n, 0x140001244n); // Rip
      s.put64(0x7ff380n, 0x140001305n); // main's caller, above the record
      return s;
    };
    const stack = build(0x33);
    const walk = await walkStack({
      ...x64Input(stack),
      registers: { rip: 0x14000101an, rsp: 0x7ff100n },
    });
    expect(walk.frames.map((f) => [f.address, f.trust])).to.deep.equal([
      [0x14000101an, 'context'],
      [0x140001244n, 'context'],
      [0x140001305n, 'scan'],
    ]);
    // The interrupted frame is named at its own instruction, not one byte back.
    expect(walk.frames[1]?.instruction).to.equal(0x140001244n);
    // A record whose code selector is no user-mode one is not a CONTEXT: the scan goes on.
    const forged = await walkStack({
      ...x64Input(build(0x10)),
      registers: { rip: 0x14000101an, rsp: 0x7ff100n },
    });
    expect(forged.frames[1]?.address).to.equal(0x140006010n);
    // The same stacks through memory that answers at once (TargetMemory.readNow, the walk's
    // synchronous path): the same frames, and no read waits.
    for (const [cs, frames] of [
      [0x33, walk.frames],
      [0x10, forged.frames],
    ] as const) {
      const memory = build(cs);
      let waited = 0;
      const now: TargetMemory = {
        read: (address, length) => {
          waited++;
          return memory.read(address, length);
        },
        readNow: (address, length) => {
          const at = Number(address - memory.base);
          if (at < 0 || at >= memory.bytes.length) return null;
          return memory.bytes.subarray(at, Math.min(memory.bytes.length, at + length));
        },
      };
      const again = await walkStack({
        ...x64Input(memory),
        memory: now,
        registers: { rip: 0x14000101an, rsp: 0x7ff100n },
      });
      expect(again.frames).to.deep.equal(frames);
      expect(waited).to.equal(0);
    }
  });
});
