import { expect } from 'chai';
import { parseAnalyze } from '../../src/parsers/analyze.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript } from './transcripts.js';

describe('analyze (!analyze -v)', () => {
  it('reads the key fields and STACK_TEXT of the docs example', () => {
    const record = parseAnalyze(
      transcript('analyze/docs-using-analyze-usermode-80000003-x86.txt').body,
    );
    assertValid('analyze', record);
    expect(record).to.include({
      exceptionCode: '0x80000003',
      processName: 'MyApp.exe',
      bucketId: '80000003_MyApp!FatalErrorBox+55',
      symbolName: 'MyApp!FatalErrorBox+55',
      moduleName: 'MyApp',
      imageName: 'MyApp.exe',
      faultingFrame: 'ntdll!PropertyLengthAsVariant+73',
    });
    expect(record.stackFrames).to.have.length(12);
    expect(record.stackFrames[1]).to.include({
      callSite: 'MyApp!FatalErrorBox+0x55',
      source: 'D:\\source_files\\MyApp\\util.c @ 541',
    });
  });

  it('reads x64 STACK_TEXT with colon args and the failure bucket', () => {
    const record = parseAnalyze(
      transcript('analyze/clusterfuzz-stack-overflow-c00000fd-bad-symbols.txt').body,
    );
    expect(record).to.include({
      exceptionCode: '0xc00000fd',
      failureBucketId: 'WRONG_SYMBOLS_c00000fd_MSHTML.dll!RunHTMLApplication',
      faultingThread: '0xe8c',
    });
    expect(record.stackFrames[0]).to.include({ callSite: 'MSHTML!Ordinal101+0x10102' });
  });

  it('takes the code from EXCEPTION_CODE (NTSTATUS) in the 6.12 format', () => {
    const record = parseAnalyze(
      transcript('analyze/fuzzmanager-win7-x86-av-minidump-6.12.txt').body,
    );
    expect(record.exceptionCode).to.equal('0xc0000005');
    expect(record.failureBucketId).to.match(/^INVALID_POINTER_READ_FILL_PATTERN_2b2b2b2b_c0000005/);
  });
});
