// A CONTEXT record captured in place on the stack, as the CRT's invalid-parameter handler leaves
// one (it calls RtlCaptureContext into a local CONTEXT and reports it as the exception's context:
// rust-minidump's testdata/invalid-parameter.dmp, exception 0xc000000d, has its RDX, R10 and RIP
// slots walked as frames 3-5 before this fix). The dump is built here with the same shape: the
// handler's frame 0, the record 0x450 bytes up the stack with the handler's own registers (its
// RSP below the record), and the real callers above it.
import { expect } from 'chai';
import { walkedStacks } from '../helpers/walked-stacks.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { Stack64, writeAmd64Dump } from './helpers/amd64-dump.js';

const APP = { name: 'CrashTest.exe', base: 0x7ff61bc80000n, size: 0x200000 };
const KERNEL32 = { name: 'kernel32.dll', base: 0x7ff805450000n, size: 0x100000 };
const NTDLL = { name: 'ntdll.dll', base: 0x7ff806ab0000n, size: 0x200000 };
const at = (m: { base: bigint }, rva: number) => m.base + BigInt(rva);

describe('scan past a CONTEXT record captured in place (invalid-parameter handler)', () => {
  function build(): string {
    const stack = new Stack64(0xfc218fe000n, 0x2000);
    const handler = { rip: at(APP, 0x7a9a3), rsp: 0xfc218fea60n, rbp: 0xfc218ff530n };
    // The handler's CONTEXT, captured into its own locals: RDX and R10 hold .rdata pointers
    // (the `expression` and `function` strings), RIP the capture point, RSP the handler's frame.
    stack.context(0xfc218feeb0n, {
      ...handler,
      rax: 0xfc218feeb0n,
      rcx: 0xfc218feeb0n,
      rdx: at(APP, 0x145050),
      r10: at(APP, 0x14bb70),
    });
    // The handler's callers, above the record: the CRT function that found the bad parameter,
    // then the thread's start (kernel32!BaseThreadInitThunk, ntdll!RtlUserThreadStart), then a
    // copy of the start routine's address that RtlUserThreadStart keeps in its frame.
    stack.put(0xfc218ff3d8n, at(APP, 0xa358f));
    stack.put(0xfc218ffe68n, at(KERNEL32, 0x13034));
    stack.put(0xfc218ffe98n, at(NTDLL, 0x71461));
    stack.put(0xfc218ffec0n, at(APP, 0x14d0));
    return writeAmd64Dump(makeTempDir('ctx-record'), 'invalid-parameter.dmp', {
      modules: [APP, KERNEL32, NTDLL],
      stack,
      registers: handler,
    });
  }

  it('takes none of the record’s slots for frames and walks on to the real callers', async () => {
    const { stacks } = await walkedStacks(build(), {}, { recordedPaths: false });
    const frames = stacks[0]?.frames ?? [];
    expect(frames.map((f) => f.address)).to.deep.equal([
      '0x7ff61bcfa9a3', // the handler, at the exception context
      '0x7ff61bd2358f', // its caller, the first word above the record
      '0x7ff805463034', // kernel32 (BaseThreadInitThunk)
      '0x7ff806b21461', // ntdll (RtlUserThreadStart): the thread's first function
    ]);
    expect(stacks[0]?.stop).to.equal('end');
  });
});
