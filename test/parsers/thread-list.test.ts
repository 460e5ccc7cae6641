// dotnet-dump's `threads` on its recorded real output
// (test/fixtures/transcripts/dotnet-dump/threads-exceptions-linux-net10.txt, dotnet-dump 10), and
// what the parser does with a line it cannot place.
import { expect } from 'chai';
import { join } from 'node:path';
import { lookupCommand } from '../../src/parsers/registry.js';
import { parseThreadList } from '../../src/parsers/thread-list.js';
import { readTranscriptFile, REPO_ROOT } from './transcripts.js';

const FILE = join(
  REPO_ROOT,
  'test',
  'fixtures',
  'transcripts',
  'dotnet-dump',
  'threads-exceptions-linux-net10.txt',
);

describe('threadList (dotnet-dump threads)', () => {
  it('reads every thread, the current one marked, ids as lower-case hex', () => {
    const t = readTranscriptFile(FILE, 'dotnet-dump/threads-exceptions-linux-net10.txt');
    const record = parseThreadList(t.body);
    expect(record.warnings).to.deep.equal([]);
    expect(record.threads).to.have.length(8);
    expect(record.threads[0]).to.deep.equal({ index: 0, osThreadId: '0x4518', current: true });
    expect(record.threads[1]).to.deep.equal({ index: 1, osThreadId: '0x451a', current: false });
    expect(record.currentIndex).to.equal(0);
  });

  it('is the parser of `threads` and `setthread`, not of `setthread 3` or cdb `~`', () => {
    expect(lookupCommand('threads')?.kind).to.equal('threadList');
    expect(lookupCommand('setthread')?.kind).to.equal('threadList');
    expect(lookupCommand('setthread 3')?.kind).to.not.equal('threadList');
    expect(lookupCommand('~')?.kind).to.not.equal('threadList');
  });

  it('keeps what it cannot place as a warning, and a hex/decimal mismatch too', () => {
    const record = parseThreadList("*0 0x10 (16)\n 1 0x11 (99)\nUnrecognized SOS command 'x'\n");
    expect(record.threads).to.have.length(2);
    expect(record.warnings).to.deep.equal([
      'thread 1: 0x11 and (99) are not the same id',
      "unrecognised line: Unrecognized SOS command 'x'",
    ]);
  });
});
