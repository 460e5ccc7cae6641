// The exception record as the processor hands it on (src/processor/process-exception.ts): the
// x86 cut to 32 bits of sign-extended fields (Breakpad's minidump_32bit_crash_addr.dmp records
// the write address 0x45 as 0xffffffff00000045), an access violation's kind and address, and the
// module holding the address.
import { expect } from 'chai';
import type { DumpException } from '../../src/minidump/streams/exception.js';
import { processException } from '../../src/processor/process-exception.js';
import type { ProcessModule } from '../../src/processor/process-state.js';

const APP: ProcessModule = {
  name: 'app.exe',
  path: 'C:\\app\\app.exe',
  base: 0x400000n,
  size: 0x10000,
  timestamp: 0x5f3a1b2c,
  checksum: 0,
  codeId: '5F3A1B2C10000',
};

/** An access violation writing `target` at `address` (EXCEPTION_RECORD, winnt.h). */
function writeFault(address: bigint, target: bigint): DumpException {
  return {
    threadId: 7,
    code: 0xc0000005,
    flags: 0,
    nestedRecord: 0n,
    address,
    parameters: [1n, target],
    context: { size: 0, rva: 0 },
  };
}

describe('processException (src/processor/process-exception.ts)', () => {
  it('cuts sign-extended x86 addresses to 32 bits and finds the module holding the address', () => {
    const recorded = writeFault(0xffffffff00401010n, 0xffffffff00000045n);
    const x86 = processException(recorded, [APP], [], 'x86');
    expect(x86.address).to.equal(0x401010n);
    expect(x86.access).to.deep.equal({ kind: 'write', address: 0x45n });
    expect(x86.module?.name).to.equal('app.exe');
    expect(x86.name).to.equal('Access violation writing 0x45');
    // On x64 the same fields are addresses as written: nothing is cut, no module holds them.
    const amd64 = processException(recorded, [APP], [], 'amd64');
    expect(amd64.address).to.equal(0xffffffff00401010n);
    expect(amd64.module).to.equal(undefined);
  });
});
