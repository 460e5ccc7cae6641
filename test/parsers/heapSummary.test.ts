import { expect } from 'chai';
import { parseHeapSummary } from '../../src/parsers/heap-summary.js';
import type { HeapSummaryHeap, HeapSummaryRecord } from '../../src/parsers/records.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody, untestedTranscripts } from './heap-sos-umdh-transcripts.js';

function parse(file: string): HeapSummaryRecord {
  const record = parseHeapSummary(transcriptBody(file));
  assertValid('heapSummary', record);
  return record;
}

function heap(record: HeapSummaryRecord, address: string): HeapSummaryHeap {
  const found = record.heaps.find((h) => h.address === address);
  if (!found) throw new Error(`no heap ${address}`);
  return found;
}

describe('parseHeapSummary (!heap -s)', () => {
  it('reads the Windows 10 x64 table with the star banner, fragmentation and a hex lock count', () => {
    const record = parse('heap-s/hueifeng-win10-x64-nt-external-fragmentation.txt');
    expect(record.heaps).to.have.length(8);
    expect(record.lfhKey).to.equal('0xa893144b6b979747');
    expect(record.terminationOnCorruption).to.equal(true);
    const first = heap(record, '0x218f1710000');
    expect(first).to.include({ reservedKb: 65320, committedKb: 14712, virtualKb: 64928 });
    expect(first).to.include({ freeKb: 5575, listLength: 163, ucrCount: 16, virtualBlocks: 2 });
    // The `Lock cont.` column prints `c`: hex, 12.
    expect(first.lockContention).to.equal(12);
    expect(first.fastHeap).to.equal('LFH');
    expect(first.externalFragmentationPercent).to.equal(38);
    expect(first.externalFragmentationFreeBlocks).to.equal(163);
    expect(heap(record, '0x218f1660000').fastHeap).to.equal(null);
    expect(heap(record, '0x218f3450000').flags).to.equal('0x41002');
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the 32-bit table after SEGMENT HEAP ERROR, overflowing columns and virtual blocks', () => {
    const record = parse('heap-s/keenjin-win10-x86-segment-heap-error-virtual-blocks.txt');
    expect(record.segmentHeapError).to.equal(
      'SEGMENT HEAP ERROR: failed to initialize the extention',
    );
    expect(record.lfhKey).to.equal('0x4d5d83a8');
    expect(record.terminationOnCorruption).to.equal(false);
    expect(record.heaps).to.have.length(29);
    // `00310000 00001002 1682164 1669420 1682164   7769   618   318    1     23   LFH`
    const big = heap(record, '0x310000');
    expect(big).to.include({ reservedKb: 1682164, committedKb: 1669420, virtualKb: 1682164 });
    expect(big).to.include({ freeKb: 7769, listLength: 618, ucrCount: 318, virtualBlocks: 1 });
    expect(big.lockContention).to.equal(0x23);
    // Virtual block lines come before the row of their heap, as many as its `Virt blocks`.
    const first = heap(record, '0x4b0000');
    expect(first.virtualBlocks).to.equal(10);
    expect(first.virtualBlockRanges).to.have.length(10);
    expect(first.virtualBlockRanges?.[0]).to.deep.equal({
      start: '0x7dc0000',
      end: '0x7dc0000',
      size: 0,
    });
    for (const h of record.heaps) {
      expect(h.virtualBlockRanges?.length ?? 0, h.address).to.equal(h.virtualBlocks);
    }
    const fragmented = heap(record, '0x9d50000');
    expect(fragmented.externalFragmentationPercent).to.equal(34);
    expect(fragmented.externalFragmentationFreeBlocks).to.equal(175);
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads NtGlobalFlag debugging aids and a table with no fast heap at all', () => {
    const record = parse('heap-s/lowleveldesign-win10-x64-no-lfh-debug-flags.txt');
    expect(record.ntGlobalFlag).to.deep.equal([
      'tail checking',
      'free checking',
      'validate parameters',
    ]);
    expect(record.lfhKey).to.equal('0x454b25cb0c');
    expect(record.heaps.map((h) => h.address)).to.deep.equal(['0xbd4aef0000', '0xbd4ac70000']);
    expect(record.heaps.map((h) => h.fastHeap)).to.deep.equal([null, null]);
    expect(heap(record, '0xbd4aef0000')).to.include({ flags: '0x40000062', committedKb: 44 });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the Windows 10 banner output that starts without a prompt (+ust)', () => {
    const record = parse('heap-s/myarichuk-win10-x64-nt-heap-only-ust.txt');
    expect(record.ntGlobalFlag).to.deep.equal(['stack back traces']);
    expect(record.lfhKey).to.equal('0x64ecab356b9e5983');
    expect(record.heaps).to.have.length(5);
    expect(heap(record, '0x15d85bb0000')).to.include({
      flags: '0x8000002',
      reservedKb: 8376,
      committedKb: 6816,
      lockContention: 3,
      fastHeap: 'LFH',
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the Windows 7 affinity manager block', () => {
    const record = parse('heap-s/onecode-win7-x86-affinity-manager-2.txt');
    expect(record.lfhKey).to.equal('0x28cc5a6e');
    expect(record.terminationOnCorruption).to.equal(false);
    expect(record.affinityManager).to.deep.equal({
      virtualAffinityLimit: 4,
      currentEntriesInUse: -1,
      swaps: 0,
      resets: 0,
      allocs: 0,
    });
    expect(record.heaps).to.have.length(8);
    expect(heap(record, '0x460000')).to.include({ committedKb: 148, fastHeap: 'LFH' });
    expect(heap(record, '0xd50000')).to.include({ committedKb: 4, fastHeap: null });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the XP-era lookaside `L` fast heap column', () => {
    const record = parse('heap-s/onecode-xp-era-x86-fast-heap-L.txt');
    expect(record.lfhKey).to.equal(undefined);
    expect(record.heaps.map((h) => [h.address, h.fastHeap])).to.deep.equal([
      ['0x150000', 'L'],
      ['0x250000', null],
      ['0x380000', 'L'],
    ]);
    expect(heap(record, '0x150000')).to.include({ reservedKb: 16384, committedKb: 16352 });
    expect(record.warnings).to.deep.equal([]);
  });

  it('tells "No heaps to display." apart from a table it could not read', () => {
    const record = parse('heap-s/win10-x64-nt-stats-no-heaps-to-display.txt');
    expect(record.heaps).to.deep.equal([]);
    expect(record.noHeapsToDisplay).to.equal(true);
    expect(record.lfhKey).to.equal('0x955d42c6df4ecc4f');
    expect(record.warnings).to.deep.equal([]);
  });

  it('reports a line it cannot place instead of dropping it', () => {
    const body = transcriptBody('heap-s/onecode-xp-era-x86-fast-heap-L.txt');
    const record = parseHeapSummary(`${body}\nthis is not heap output`);
    expect(record.heaps).to.have.length(3);
    expect(record.warnings).to.deep.equal(['unrecognised line: this is not heap output']);
  });

  it('has a test for every heap-s transcript', () => {
    expect(untestedTranscripts(import.meta.url, 'heap-s')).to.deep.equal([]);
  });
});
