// VT stripping and newline normalising, including sequences and line endings cut across chunks
// at every possible position (a pty delivers arbitrary chunks).
import { expect } from 'chai';
import fc from 'fast-check';
import { NewlineNormalizer } from '../../src/pty/newlines.js';
import { TerminalTextDecoder } from '../../src/pty/terminal-text.js';
import { VtStripper } from '../../src/pty/vt-strip.js';

// Exact bytes winedbg 8 printed over a pty under Wine at start-up and for one command.
const WINEDBG_START =
  '\u001b]0;Wine Debugger\u0007\u001b[?25lWineDbg starting on pid 01a0\r\r\n\u001b[?25h\u001b[?25l0x000001700555f5 ntdll+0x555f5: ret\u001b[K\r\r\n\u001b[?25h\u001b[?25lWine-dbg>\u001b[?25h';
const WINEDBG_REPLY =
  '\u001b[?25lprint 0x41\r\r\n\u001b[?25h\u001b[?25l0x41\r\r\n\u001b[?25h\u001b[?25lWine-dbg>\u001b[?25h';

function decodeInChunks(raw: string, cuts: readonly number[]): string {
  const decoder = new TerminalTextDecoder();
  const points = [...new Set(cuts.map((c) => c % (raw.length + 1)))].sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const at of [...points, raw.length]) {
    out += decoder.push(raw.slice(from, at));
    from = at;
  }
  return out;
}

describe('terminal text: VT stripping and newlines', () => {
  it('turns the measured winedbg bytes into plain lines', () => {
    expect(new TerminalTextDecoder().push(WINEDBG_START)).to.equal(
      'WineDbg starting on pid 01a0\n0x000001700555f5 ntdll+0x555f5: ret\nWine-dbg>',
    );
    expect(new TerminalTextDecoder().push(WINEDBG_REPLY)).to.equal('print 0x41\n0x41\nWine-dbg>');
  });

  it('gives the same text however the stream is cut (every single cut point)', () => {
    const whole = new TerminalTextDecoder().push(WINEDBG_START + WINEDBG_REPLY);
    const raw = WINEDBG_START + WINEDBG_REPLY;
    for (let at = 0; at <= raw.length; at++) {
      expect(decodeInChunks(raw, [at]), `cut at ${at}`).to.equal(whole);
    }
  });

  it('gives the same text for any set of cut points (property)', () => {
    const raw =
      WINEDBG_START + WINEDBG_REPLY + '\u001b[1;31mred\u001b[0m\r\ndone\u001bP+q\u001b\\!';
    const whole = new TerminalTextDecoder().push(raw);
    expect(whole.endsWith('red\ndone!')).to.equal(true);
    fc.assert(
      fc.property(fc.array(fc.nat(raw.length), { maxLength: 12 }), (cuts) => {
        expect(decodeInChunks(raw, cuts)).to.equal(whole);
      }),
    );
  });

  it('strips OSC terminated by ST as well as BEL, and 8-bit CSI', () => {
    const strip = new VtStripper();
    expect(strip.push('a\u001b]0;title\u001b\\b\u009b2Kc')).to.equal('abc');
  });

  it('normalises \\r\\r\\n and \\r\\n to \\n, holding back a CR at the end of a chunk', () => {
    const nl = new NewlineNormalizer();
    expect(nl.push('one\r')).to.equal('one');
    expect(nl.push('\r')).to.equal('');
    expect(nl.push('\ntwo\r\nthree')).to.equal('\ntwo\nthree');
    expect(nl.push('\rfour')).to.equal('four');
  });
});
