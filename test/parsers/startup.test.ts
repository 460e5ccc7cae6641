import { expect } from 'chai';
import { parseStartup } from '../../src/parsers/startup.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript } from './transcripts.js';

describe('startup (cdb banner)', () => {
  it('reads version, dump file, dump kind and symbol path of a full-memory dump', () => {
    const record = parseStartup(
      transcript('startup/windbg10586-fullmem-dump-taskmgr-netfx-x64.txt').body,
    );
    assertValid('startup', record);
    expect(record).to.include({
      debuggerVersion: '10.0.10586.567',
      debuggerArchitecture: 'AMD64',
      dumpFile: 'C:\\Users\\Hyundong\\AppData\\Local\\Temp\\MySimpleConApp.DMP',
      dumpKind: 'User Mini Dump File with Full Memory',
      symbolPath: 'srv*',
    });
  });

  it('reports a dump that cannot be opened, with its HRESULT', () => {
    const record = parseStartup(
      transcript('startup/windbg-25921-open-dump-failure-no-system-info.txt').body,
    );
    expect(record).to.include({ hresult: '0x80004005' });
    expect(record.error).to.match(/Could not open dump file .*Unspecified error$/);
  });

  it('notes the exception of interest and the comment stream', () => {
    const record = parseStartup(
      transcript('startup/cdb612-dump-netcore2-comment-wake-debugger-loadby-fail.txt').body,
    );
    expect(record).to.include({ comment: 'HangMode', exceptionOfInterest: true });
  });
});
