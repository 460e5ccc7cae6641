import { expect } from 'chai';
import {
  normalizeCode,
  normalizeHex,
  removeSymbolNoise,
  splitLines,
} from '../../src/parsers/text.js';

describe('parser text helpers', () => {
  it('normalises addresses the records.md way', () => {
    expect(normalizeHex('00007ff8`846c0000')).to.equal('0x7ff8846c0000');
    expect(normalizeHex('0x0000003A9ACFED28')).to.equal('0x3a9acfed28');
    expect(normalizeHex('00000000')).to.equal('0x0');
    expect(normalizeHex('ntdll!foo')).to.equal(null);
  });

  it('pads exception codes to 8 digits', () => {
    expect(normalizeCode('c0000005')).to.equal('0xc0000005');
    expect(normalizeCode('4242420')).to.equal('0x04242420');
    expect(normalizeCode('1234567890')).to.equal(null);
  });

  it('splits CRLF and the pty CR CR LF alike', () => {
    expect(splitLines('a\r\r\nb\r\nc\nd')).to.deep.equal(['a', 'b', 'c', 'd']);
  });

  it('joins a frame row that a checksum warning cut in two (clrstack -a transcript)', () => {
    const { lines, noise } = removeSymbolNoise([
      '0000003a9acfef00 00007ffce4f7063c *** WARNING: Unable to verify checksum for MySimpleConApp.exe',
      'MySimpleConApp.Program.Main(System.String[]) [C:\\Program.cs @ 35]',
      'DBGHELP: e:/symbols is not a valid store',
      '    PARAMETERS:',
    ]);
    expect(lines).to.deep.equal([
      '0000003a9acfef00 00007ffce4f7063c MySimpleConApp.Program.Main(System.String[]) [C:\\Program.cs @ 35]',
      '    PARAMETERS:',
    ]);
    expect(noise).to.have.length(2);
  });
});
