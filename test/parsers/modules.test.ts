import { expect } from 'chai';
import { parseModules } from '../../src/parsers/modules.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript, winedbgFixture } from './transcripts.js';

describe('modules (lm, info share)', () => {
  it('reads lmvm: range, status and the verbose detail lines', () => {
    const record = parseModules(
      transcript('misc/lmvm-mscorwks-x64-debugger-on-wow64-dump.txt').body,
    );
    assertValid('modules', record);
    expect(record.modules).to.have.length(1);
    expect(record.modules[0]).to.include({
      start: '0x6d010000',
      end: '0x6d5c0000',
      name: 'mscorwks',
      symbolStatus: 'deferred',
      imagePath: 'C:\\Windows\\Microsoft.NET\\Framework\\v2.0.50727\\mscorwks.dll',
      fileVersion: '2.0.50727.8941',
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads a real winedbg info share table (PE and ELF rows)', () => {
    const body = winedbgFixture('av-unhandled-bt-info-share-minidump.txt').body;
    const share = body.slice(
      body.indexOf('Wine-dbg>info share'),
      body.indexOf('Wine-dbg>info exception'),
    );
    const record = parseModules(share);
    expect(record.modules).to.have.length(12);
    expect(record.modules.find((m) => m.name === 'av')).to.deep.equal({
      start: '0x140000000',
      end: '0x140041000',
      name: 'av',
      symbolStatus: 'Dwarf-4-5',
      moduleType: 'PE',
    });
    expect(record.warnings).to.deep.equal([]);
  });
});
