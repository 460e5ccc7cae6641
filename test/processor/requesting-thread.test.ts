// What processDump says about which thread a dump is about, on synthetic x86 dumps
// (test/stackwalk/helpers/x86-dump.ts): the x86 crash address cut to 32 bits (writers sign-extend
// the 64-bit fields), the thread that wrote the dump told apart (BreakpadInfo), and a dump without
// an exception still giving analyze a stack: the requesting thread's, else the first thread that
// did not write the dump.
import { expect } from 'chai';
import type { ProcessState } from '../../src/processor/index.js';
import { builtinFields } from '../../src/workflows/analyze/builtin-record.js';
import { processSupplied } from '../helpers/supplied.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { StackWriter, writeX86Dump, type X86DumpSpec } from '../stackwalk/helpers/x86-dump.js';

const APP = { name: 'app.exe', base: 0x400000, size: 0x10000 };
const KERNEL32 = { name: 'kernel32.dll', base: 0x76000000, size: 0x100000 };

/** crash ← main ← kernel32 by the EBP chain. */
function spec(extra: Partial<X86DumpSpec>): X86DumpSpec {
  const stack = new StackWriter(0x12f000, 0x1000)
    .put(0x12f110, 0x12f130)
    .put(0x12f114, 0x401234)
    .put(0x12f130, 0)
    .put(0x12f134, 0x76001234);
  return {
    modules: [APP, KERNEL32],
    stack: { base: 0x12f000, bytes: stack.bytes },
    registers: { eip: 0x401010, esp: 0x12f100, ebp: 0x12f110 },
    threadId: 0x1234,
    ...extra,
  };
}

async function processed(extra: Partial<X86DumpSpec>, threads: 'all' | 'exception') {
  const path = writeX86Dump(makeTempDir('requesting'), 'x86.dmp', spec(extra));
  const state = await processSupplied(path, { threads }, { recordedPaths: false });
  if (!state.ok) throw new Error(state.error.message);
  return state;
}

const walkedIds = (state: ProcessState) =>
  state.threads.filter((t) => t.callStack !== undefined).map((t) => t.id);

describe('processDump: the thread a dump is about', () => {
  it('cuts an x86 crash address to 32 bits, as Breakpad and cdb print it', async () => {
    const state = await processed({ accessAddress: 0xffffffff00000045n }, 'exception');
    expect(state.exception?.access?.address).to.equal(0x45n);
    expect(state.exception?.name).to.match(/writing 0x45$/);
    expect(builtinFields(state).exception?.address).to.equal('0x401010');
  });

  it('without an exception, analyze gets the stack of the first thread that did not write the dump', async () => {
    const state = await processed(
      { noException: true, writerThreadId: 0x99, breakpadInfo: { dumpThreadId: 0x99 } },
      'exception',
    );
    expect(state.exception).to.equal(null);
    expect(state.requestingThreadId).to.equal(0x1234);
    expect(state.threads.find((t) => t.id === 0x99)?.writingThread).to.equal(true);
    expect(walkedIds(state)).to.deep.equal([0x1234]);
    const fields = builtinFields(state);
    expect(fields.frames.map((f) => f.address)).to.deep.equal([
      '0x401010',
      '0x401234',
      '0x76001234',
    ]);
    // Frame 0 comes from the thread's own context, not an exception.
    expect(fields.frames[0]?.trust).to.equal('context');
  });

  it('takes the thread BreakpadInfo says requested the dump', async () => {
    const state = await processed(
      { noException: true, writerThreadId: 0x99, breakpadInfo: { requestingThreadId: 0x99 } },
      'exception',
    );
    expect(state.requestingThreadId).to.equal(0x99);
    expect(walkedIds(state)).to.deep.equal([0x99]);
  });

  it('with neither an exception nor BreakpadInfo, walks thread 0', async () => {
    const state = await processed({ noException: true, writerThreadId: 0x77 }, 'exception');
    expect(state.requestingThreadId).to.equal(0x77);
    expect(walkedIds(state)).to.deep.equal([0x77]);
    expect(builtinFields(state).frames).to.have.length(3);
  });
});
