import { expect } from 'chai';
import { parseLastEvent } from '../../src/parsers/last-event.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript } from './transcripts.js';

describe('lastEvent (.lastevent)', () => {
  it('reads the newer format with ids, code, chance and debugger time', () => {
    const record = parseLastEvent(
      transcript('misc/lastevent-stack-overflow-second-chance-with-time.txt').body,
    );
    assertValid('lastEvent', record);
    expect(record).to.deep.equal({
      description: 'Stack overflow',
      warnings: [],
      processId: '0x2388',
      threadId: '0x2f4c',
      code: '0xc00000fd',
      chance: 'second',
      debuggerTime: 'Thu Apr  2 16:35:59.191 2009 (GMT+8)',
    });
  });

  it('reads the old NTSD one-line format', () => {
    const record = parseLastEvent(transcript('misc/lastevent-c00000fd-second-chance.txt').body);
    expect(record).to.include({ code: '0xc00000fd', chance: 'second' });
  });

  it('reads winedbg info exception', () => {
    const record = parseLastEvent(
      'First chance exception: 0x20474343 in 64-bit code (0x0000007b013d7e).',
    );
    expect(record).to.include({ code: '0x20474343', chance: 'first' });
  });
});
