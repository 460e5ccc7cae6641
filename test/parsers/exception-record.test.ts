import { expect } from 'chai';
import { parseExceptionRecord } from '../../src/parsers/exception-record.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript } from './transcripts.js';

describe('exceptionRecord (.exr)', () => {
  it('reads a C++ EH record with its parameters and thrown types', () => {
    const record = parseExceptionRecord(
      transcript('misc/exr-cpp-eh-e06d7363-x86-with-types.txt').body,
    );
    assertValid('exceptionRecord', record);
    expect(record).to.include({
      address: '0x778a4bb2',
      code: '0xe06d7363',
      flags: '0x00000001',
      description: 'C++ EH exception',
      addressSymbol: 'KERNELBASE!RaiseException+0x00000062',
    });
    expect(record.parameters).to.deep.equal(['0x19930520', '0x55f0c4', '0x13bd278']);
    expect(record.cxxTypes?.[0]).to.equal('class HrException');
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads a CLR record with no parameters and a 64-bit address', () => {
    const record = parseExceptionRecord(
      transcript('misc/exr-minus1-clr-e0434f4d-no-parameters-x64.txt').body,
    );
    expect(record).to.include({
      address: '0x7fe9b17f963',
      code: '0xe0434f4d',
      numberParameters: 0,
    });
    expect(record.parameters).to.deep.equal([]);
  });

  it('reads the access violation detail line printed by .jdinfo', () => {
    const body = transcript('startup/jit-attach-pending-jdinfo-x64.txt').body;
    const exr = body.slice(body.indexOf('ExceptionAddress'), body.indexOf('----- Context'));
    expect(parseExceptionRecord(exr)).to.include({
      code: '0xc0000005',
      accessType: 'write',
      accessAddress: '0x0',
    });
  });
});
