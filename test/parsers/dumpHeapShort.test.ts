import { expect } from 'chai';
import { parseDumpHeapShort } from '../../src/parsers/dump-heap-short.js';
import { parseDumpHeapStat } from '../../src/parsers/dump-heap-stat.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody } from './heap-sos-umdh-transcripts.js';

// dotnet-dump 10 recordings of the same sessions dump (scripts/record-dotnet-dump.sh sessions).
describe('parseDumpHeapShort (!dumpheap -short)', () => {
  it('-mt: one address per SessionState, as many as the statistics count', () => {
    const record = parseDumpHeapShort(
      transcriptBody('dotnet-dump/dumpheap-mt-short-sessions-linux-net10.txt'),
    );
    assertValid('dumpHeapShort', record);
    expect(record.warnings).to.deep.equal([]);
    const stat = parseDumpHeapStat(
      transcriptBody('dotnet-dump/dumpheap-stat-sessions-linux-net10.txt'),
    );
    const sessions = stat.types.find((t) => t.className === 'CdbHarness.Targets.SessionState');
    expect(sessions?.count).to.equal(60);
    expect(record.count).to.equal(sessions?.count);
    expect(new Set(record.addresses).size).to.equal(record.count);
    expect(record.addresses.every((a) => /^0x[0-9a-f]+$/.test(a))).to.equal(true);
    expect(record.truncated).to.equal(false);
  });

  it('the whole heap: every object of the statistics, kept up to the cap', () => {
    const body = transcriptBody('dotnet-dump/dumpheap-short-sessions-linux-net10.txt');
    const stat = parseDumpHeapStat(
      transcriptBody('dotnet-dump/dumpheap-stat-sessions-linux-net10.txt'),
    );
    const all = parseDumpHeapShort(body);
    expect(all.count).to.equal(stat.totalObjects);
    const capped = parseDumpHeapShort(body, { maxAddresses: 10 });
    expect(capped).to.include({ count: all.count, truncated: true });
    expect(capped.addresses).to.deep.equal(all.addresses.slice(0, 10));
  });

  it('a line that is not an address is a warning', () => {
    const record = parseDumpHeapShort('7f4c0d80b988\nStatistics:\n');
    expect(record.count).to.equal(1);
    expect(record.warnings).to.have.length(1);
  });
});
