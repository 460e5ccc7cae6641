// Exception names a triager recognises, with the detail only the parameters carry.
import { expect } from 'chai';
import { exceptionName, parseExceptionCode } from '../../src/minidump/index.js';

describe('exceptionName', function () {
  it('says which access an access violation attempted, and where', function () {
    expect(exceptionName(0xc0000005, [0n, 0x10n])).to.equal('Access violation reading 0x10');
    expect(exceptionName('0xc0000005', [1n, 0x10n])).to.equal('Access violation writing 0x10');
    expect(exceptionName('c0000005', [8n, 0x7ff612340000n])).to.equal(
      'Access violation executing 0x7ff612340000 (DEP)',
    );
    expect(exceptionName(0xc0000005)).to.equal('Access violation');
  });

  it('names the fail-fast code of 0xc0000409', function () {
    expect(exceptionName(0xc0000409, [7n])).to.equal(
      'Fail-fast exception (stack buffer overrun / __fastfail): FAST_FAIL_FATAL_APP_EXIT (7)',
    );
    expect(exceptionName(0xc0000409, [2n])).to.contain('FAST_FAIL_STACK_COOKIE_CHECK_FAILURE');
    expect(exceptionName(0xc0000409, [999n])).to.contain('code (999)');
  });

  it('names CLR exceptions (current and 1.x codes) with the HRESULT from the first parameter', function () {
    expect(exceptionName(0xe0434352, [0x80131500n, 0n, 0n, 0n, 0x140000000n])).to.equal(
      'CLR exception (.NET), HRESULT 0x80131500',
    );
    expect(exceptionName(0xe0434f4d)).to.match(/^CLR exception/);
  });

  it('tells MSVC and GCC/mingw C++ exceptions apart', function () {
    expect(exceptionName(0xe06d7363)).to.equal('C++ exception (MSVC)');
    expect(exceptionName(0x20474343)).to.equal('C++ exception (GCC/mingw)');
  });

  it('names the common Windows codes', function () {
    expect(exceptionName(0x80000003)).to.equal('Breakpoint');
    expect(exceptionName(0x80000004)).to.equal('Single step');
    expect(exceptionName(0xc0000094)).to.equal('Integer divide by zero');
    expect(exceptionName(0xc00000fd)).to.equal('Stack overflow');
    expect(exceptionName(0xc0000374)).to.equal('Heap corruption');
    expect(exceptionName(0xc000001d)).to.equal('Illegal instruction');
  });

  it('calls an unknown application code application-defined, anything else unknown', function () {
    expect(exceptionName(0xe0000001)).to.equal('Application exception 0xe0000001');
    expect(exceptionName(0xc0001234)).to.equal('Unknown exception 0xc0001234');
    expect(exceptionName('not a code')).to.equal('Unknown exception not a code');
  });

  it('parses codes as numbers, 0x strings and bare hex', function () {
    expect(parseExceptionCode('0xC0000005')).to.equal(0xc0000005);
    expect(parseExceptionCode('e06d7363')).to.equal(0xe06d7363);
    expect(parseExceptionCode(-1073741819)).to.equal(0xc0000005);
    expect(parseExceptionCode('0x1234567890')).to.equal(undefined);
  });
});
