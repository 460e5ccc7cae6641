import { expect } from 'chai';
import { parseEeHeapGc } from '../../src/parsers/ee-heap-gc.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody, transcriptFiles } from './heap-sos-umdh-transcripts.js';

const FILE = 'misc/eeheap-gc-server-12heaps-net6-x64.txt';

describe('parseEeHeapGc (!eeheap -gc)', () => {
  const record = parseEeHeapGc(transcriptBody(FILE));

  it('validates and places every line', () => {
    assertValid('eeHeapGc', record);
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the 12 server GC heaps with their numbers and addresses', () => {
    expect(record.heapCount).to.equal(12);
    expect(record.heaps.map((h) => h.index)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(record.heaps[0]?.address).to.equal('0x218f3182a40');
    expect(record.heaps[11]?.address).to.equal('0x21d7eed9980');
  });

  it('reads generation starts, the heap area starts and the segment rows as printed', () => {
    const heap = record.heaps[0];
    expect(heap?.generations).to.deep.equal([
      { generation: 0, start: '0x218f34c9db0' },
      { generation: 1, start: '0x218f3477478' },
      { generation: 2, start: '0x218f3461000' },
    ]);
    expect(heap?.ephemeralAllocationContext).to.equal('none');
    expect(heap?.largeObjectHeapStart).to.equal('0x21bf3461000');
    expect(heap?.pinnedObjectHeapStart).to.equal('0x21cb3461000');
    expect(heap?.segments.map((s) => s.area)).to.deep.equal(['soh', 'loh', 'poh']);
    expect(heap?.segments[0]).to.deep.equal({
      area: 'soh',
      segment: '0x218f3460000',
      begin: '0x218f3461000',
      allocated: '0x218f3a0bdc8',
      committed: '0x218f3f02000',
      allocatedSize: 5942728,
      committedSize: 11145216,
    });
    // The pinned-object-heap row has no column header of its own.
    expect(heap?.segments[2]).to.include({ allocatedSize: 16368, committedSize: 69632 });
    expect(heap?.allocatedSize).to.equal(22988424);
    expect(heap?.committedSize).to.equal(28307456);
  });

  it('reads the GC totals in bytes, and the heaps add up to them', () => {
    expect(record.totalSize).to.equal(340107152);
    expect(record.totalCommitted).to.equal(405618688);
    const allocated = record.heaps.reduce((sum, h) => sum + (h.allocatedSize ?? 0), 0);
    const committed = record.heaps.reduce((sum, h) => sum + (h.committedSize ?? 0), 0);
    expect(allocated).to.equal(record.totalSize);
    expect(committed).to.equal(record.totalCommitted);
  });

  it('has a test for every eeheap -gc transcript', () => {
    expect(transcriptFiles('misc', /^eeheap-gc/)).to.deep.equal([FILE]);
  });
});
