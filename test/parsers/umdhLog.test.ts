import { expect } from 'chai';
import { feedLines } from '../../src/parsers/line-parser.js';
import type { UmdhLogEntry } from '../../src/parsers/records.js';
import { createUmdhLogParser, parseUmdhLog } from '../../src/parsers/umdh.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody, transcriptLines } from './heap-sos-umdh-transcripts.js';

// The only single-snapshot text in test/fixtures/transcripts: Microsoft's docs quote the entry of
// BackTrace00B53 as the snapshot log prints it (`BYTES bytes in N allocations (@ SIZE) by:`).
const FILE = 'umdh/docs-diff-backtrace-block.txt';

describe('parseUmdhLog (a single umdh snapshot)', () => {
  it('reads the BackTrace00B53 entry: hex bytes, allocation count and size, then its stack', () => {
    const record = parseUmdhLog(transcriptBody(FILE));
    assertValid('umdhLog', record);
    expect(record.entries).to.have.length(1);
    const entry = record.entries[0];
    expect(entry).to.deep.include({
      backtrace: 'BackTrace00B53',
      bytes: 0x5320,
      allocs: 0x14,
      allocationSize: 0x428,
    });
    // 0x14 allocations of 0x428 bytes are the 0x5320 bytes.
    expect((entry?.allocs ?? 0) * (entry?.allocationSize ?? 0)).to.equal(entry?.bytes);
    expect(entry?.frames).to.have.length(12);
    expect(entry?.frames[0]).to.equal('ntdll!RtlDebugAllocateHeap+0x000000FD');
    expect(entry?.frames.at(-1)).to.equal('KERNEL32!BaseProcessStart+0x0000003D');
    expect(record.warnings).to.deep.equal([]);
  });

  it('streams the entry to onEntry', () => {
    const seen: UmdhLogEntry[] = [];
    const record = feedLines(
      createUmdhLogParser({ onEntry: (e) => seen.push(e) }),
      transcriptLines(FILE),
    );
    expect(record.entries).to.deep.equal([]);
    expect(record.entryCount).to.equal(1);
    expect(seen.map((e) => e.backtrace)).to.deep.equal(['BackTrace00B53']);
  });

  it('does not read a comparison report as a snapshot', () => {
    const record = parseUmdhLog(transcriptBody('umdh/onecode-umdh-diff-plus-and-minus.txt'));
    expect(record.entries).to.deep.equal([]);
    expect(record.warnings.length).to.be.greaterThan(0);
  });
  it('reads the newer layout: one allocation per entry (size + overhead at address), stacks with no symbols', () => {
    const record = parseUmdhLog(
      transcriptBody('umdh/mahdytech-umdh-log-allocation-no-symbols.txt'),
    );
    assertValid('umdhLog', record);
    expect(record.entries).to.have.length(1);
    expect(record.entries[0]).to.include({
      backtrace: 'BackTraceEDD4EEA6',
      bytes: 0x30,
      allocs: 1,
      overhead: 0x30,
      address: '0x206edda8ba0',
    });
    // Bare return addresses: umdh had no symbols for these modules.
    expect(record.entries[0]?.frames).to.have.length(11);
    expect(record.entries[0]?.frames[0]).to.equal('7FFE82352933');
    expect(record.warnings).to.deep.equal([]);
    // A 32-bit process's log in the same layout.
    const x86 = parseUmdhLog(transcriptBody('umdh/cn-note-umdh-log-allocation-no-symbols.txt'));
    expect(x86.entries[0]).to.include({ bytes: 0xc6, overhead: 0x1a, address: '0x56004c0' });
  });
});
