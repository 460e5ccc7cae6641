import { expect } from 'chai';
import { createDumpHeapStatParser, parseDumpHeapStat } from '../../src/parsers/dump-heap-stat.js';
import { feedLines } from '../../src/parsers/line-parser.js';
import type { DumpHeapStatType } from '../../src/parsers/records.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody, transcriptFiles, transcriptLines } from './heap-sos-umdh-transcripts.js';

const FILE = 'misc/dumpheap-stat-netfx48-x86-no-total.txt';

describe('parseDumpHeapStat (!dumpheap -stat)', () => {
  it('reads every type row of the .NET Framework x86 statistics', () => {
    const record = parseDumpHeapStat(transcriptBody(FILE));
    assertValid('dumpHeapStat', record);
    expect(record.types).to.have.length(16);
    expect(record.typeCount).to.equal(16);
    expect(record.types[0]).to.deep.equal({
      methodTable: '0x11b7998',
      count: 10,
      totalSize: 116,
      className: 'Free',
    });
    expect(record.types.find((t) => t.className === 'System.String')).to.deep.equal({
      methodTable: '0x6c1824e4',
      count: 203,
      totalSize: 6374,
      className: 'System.String',
    });
    // A class name with spaces inside its generic arguments stays whole.
    expect(record.types[5]?.className).to.equal(
      'System.Collections.Generic.Dictionary`2+Entry[[System.Type, mscorlib],[System.Security.Policy.EvidenceTypeDescriptor, mscorlib]][]',
    );
    expect(record.types.at(-1)).to.include({ className: 'System.Object[]', totalSize: 17748 });
    expect(record.types.reduce((sum, t) => sum + t.count, 0)).to.equal(459);
    // The author cut the `Total N objects` footer off.
    expect(record.totalObjects).to.equal(undefined);
    expect(record.warnings).to.deep.equal([]);
  });

  it('streams rows to onEntry without keeping them, with the same rows as the whole-text parse', () => {
    const seen: DumpHeapStatType[] = [];
    const parser = createDumpHeapStatParser({ onEntry: (t) => seen.push(t) });
    const record = feedLines(parser, transcriptLines(FILE));
    assertValid('dumpHeapStat', record);
    expect(record.types).to.deep.equal([]);
    expect(record.typeCount).to.equal(16);
    expect(seen).to.deep.equal(parseDumpHeapStat(transcriptBody(FILE)).types);
  });

  it('keeps entries as well when asked to', () => {
    const seen: DumpHeapStatType[] = [];
    const parser = createDumpHeapStatParser({ onEntry: (t) => seen.push(t), keepEntries: true });
    const record = feedLines(parser, transcriptLines(FILE));
    expect(record.types).to.deep.equal(seen);
  });

  it('has a test for every dumpheap -stat transcript', () => {
    expect(transcriptFiles('misc', /^dumpheap-stat/)).to.deep.equal([FILE]);
  });
});
