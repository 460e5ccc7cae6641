// CLR recognition from a dump's module list and exception record. The parameter sets are the ones
// real runtimes wrote under Wine (test/watch/watch-clr-winedbg.test.ts produces them end to end):
// .NET 10's unhandled ArgumentException, .NET 8's first-chance InvalidOperationException, and
// .NET 10's parameterless first-chance notification.
import { expect } from 'chai';
import { clrExceptionDetail, describeHresult, findClrRuntime } from '../../src/processor/clr.js';

const CORECLR_BASE = 0x1600000n;
const modules = [
  { base: 0x140000000n, size: 0x2d000, name: 'cdbh-dotnet.exe', path: 'Z:\\b\\cdbh-dotnet.exe' },
  {
    base: 0x7b000000n,
    size: 0x5e5000,
    name: 'kernelbase.dll',
    path: 'C:\\windows\\system32\\kernelbase.dll',
  },
  {
    base: CORECLR_BASE,
    size: 0x47a000,
    name: 'coreclr.dll',
    path: 'Z:\\b\\coreclr.dll',
    fileVersion: '10.0.1226.42308',
  },
];

describe('CLR recognition (src/processor/clr.ts)', () => {
  it('finds the runtime module and says which runtime it is', () => {
    expect(findClrRuntime(modules)).to.deep.equal({
      runtime: 'coreclr',
      module: 'coreclr.dll',
      base: '0x1600000',
      path: 'Z:\\b\\coreclr.dll',
      fileVersion: '10.0.1226.42308',
    });
    expect(findClrRuntime([{ ...modules[0]!, name: 'CLR.DLL' }])?.runtime).to.equal('clr');
    expect(findClrRuntime([{ ...modules[0]!, name: 'mscorwks.dll' }])?.runtime).to.equal(
      'mscorwks',
    );
    expect(findClrRuntime(modules.slice(0, 2))).to.equal(null);
  });

  it('reads the sign-extended HRESULT and the raising runtime from a classic record', () => {
    const params = [0xffffffff80070057n, 0n, 0n, 0n, CORECLR_BASE];
    expect(clrExceptionDetail(0xe0434352, params, modules)).to.deep.equal({
      hresult: '0x80070057',
      hresultName: 'E_INVALIDARG',
      types: ['System.ArgumentException'],
      raisedBy: 'coreclr.dll',
    });
    expect(
      clrExceptionDetail(0xe0434352, [0xffffffff80131509n, 0n, 0n, 0n, CORECLR_BASE], modules),
    ).to.include({ hresult: '0x80131509', hresultName: 'COR_E_INVALIDOPERATION' });
  });

  it('says why a .NET 9+ notification has no HRESULT', () => {
    const detail = clrExceptionDetail(0xe0434352, [], modules);
    expect(detail?.notification).to.equal(true);
    expect(detail?.hresult).to.equal(undefined);
    expect(detail?.note).to.match(/^no parameters: the first-chance notification \.NET 9\+/);
  });

  it('keeps an unknown HRESULT without a name, and a runtime base it cannot place without raisedBy', () => {
    expect(
      clrExceptionDetail(0xe0434f4d, [0x80131234n, 0n, 0n, 0n, 0x9990000n], modules),
    ).to.deep.equal({ hresult: '0x80131234' });
  });

  it('leaves every other code alone', () => {
    expect(clrExceptionDetail(0xc0000005, [0n, 8n], modules)).to.equal(undefined);
  });

  it('one HRESULT can be several .NET types (E_POINTER)', () => {
    expect(describeHresult(0x80004003)?.types).to.include.members([
      'System.NullReferenceException',
      'System.ArgumentNullException',
    ]);
  });
});
