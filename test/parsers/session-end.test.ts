import { expect } from 'chai';
import { parseDumpWritten } from '../../src/parsers/dump-written.js';
import { parseExtensionLoad } from '../../src/parsers/extension-load.js';
import { parseSessionEnd } from '../../src/parsers/session-end.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript } from './transcripts.js';

describe('sessionEnd, dumpWritten, extensionLoad', () => {
  it('q prints quit: and does not detach; qd and .detach do', () => {
    expect(parseSessionEnd('quit:', 'q')).to.deep.equal({ detached: false, warnings: [] });
    expect(parseSessionEnd('', 'qd').detached).to.equal(true);
    expect(parseSessionEnd('', '.detach').detached).to.equal(true);
    assertValid('sessionEnd', parseSessionEnd('quit:', 'q'));
  });

  it('reads a successful .dump (StackDump transcript)', () => {
    const body = transcript('dump-sos-sx/stackdump-dbgeng-event-kp-and-dump-written.txt').body;
    const record = parseDumpWritten(body.slice(body.indexOf('Creating')));
    assertValid('dumpWritten', record);
    expect(record).to.include({ success: true, path: 'exception.dmp', dumpType: 'mini user dump' });
  });

  it('reads a failed .dump with its Win32 error and message', () => {
    const record = parseDumpWritten(
      transcript('dump-sos-sx/dump-mA-failure-access-denied-adplus.txt').body,
    );
    expect(record).to.include({ success: false, win32Error: 5 });
    expect(record.error).to.equal('Dump creation failed, Win32 error 0n5\nAccess is denied.');
  });

  it('winedbg minidump: silence is success, "No process loaded" is failure', () => {
    expect(parseDumpWritten('', 'minidump /tmp/x.dmp')).to.include({
      success: true,
      path: '/tmp/x.dmp',
    });
    const failed = parseDumpWritten(
      "No process loaded, cannot execute 'minidump has space.dmp'",
      'minidump has space.dmp',
    );
    expect(failed.success).to.equal(false);
  });

  it('.loadby: no output is success, "Unable to find module" is failure', () => {
    expect(parseExtensionLoad('')).to.deep.equal({ success: true, warnings: [] });
    const body = transcript(
      'dump-sos-sx/loadby-sos-clr-and-mscorwks-unable-to-find-module.txt',
    ).body;
    const first = body.split('\n').slice(0, 2).join('\n');
    expect(parseExtensionLoad(first)).to.deep.equal({
      success: false,
      error: "Unable to find module 'clr'",
      warnings: [],
    });
  });
});
