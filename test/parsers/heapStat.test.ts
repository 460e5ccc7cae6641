import { expect } from 'chai';
import { parseHeapStat } from '../../src/parsers/heap-stat.js';
import type { HeapStatRecord } from '../../src/parsers/records.js';
import { assertValid } from '../../src/report/schemas.js';
import {
  transcriptBody,
  transcriptFiles,
  untestedTranscripts,
} from './heap-sos-umdh-transcripts.js';

function parse(file: string): HeapStatRecord {
  const record = parseHeapStat(transcriptBody(file));
  assertValid('heapStat', record);
  return record;
}

describe('parseHeapStat (!heap -stat -h ADDR)', () => {
  it('reads the 32-bit buckets as hex (cn-notes, one dominant size)', () => {
    const record = parse('heap-stat/cn-notes-win10-x86-heap-stat-h.txt');
    expect(record.heap).to.equal('0x39d0000');
    expect(record.groupBy).to.equal('TOTSIZE');
    expect(record.maxDisplay).to.equal(20);
    expect(record.buckets).to.have.length(20);
    // `    190 5328 - 81ee80  (97.61)`
    expect(record.buckets[0]).to.deep.equal({
      size: 0x190,
      count: 0x5328,
      totalBytes: 0x81ee80,
      percent: 97.61,
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads a heap whose trailing prompt space and big totals are intact (keenjin)', () => {
    const record = parse('heap-stat/keenjin-win10-x86-heap-stat-h.txt');
    expect(record.heap).to.equal('0x310000');
    expect(record.buckets).to.have.length(20);
    expect(record.buckets[0]).to.deep.equal({
      size: 0x10000,
      count: 0x6228,
      totalBytes: 0x62280000,
      percent: 97.11,
    });
    expect(record.buckets[19]).to.deep.equal({
      size: 0x28050,
      count: 1,
      totalBytes: 0x28050,
      percent: 0.01,
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the 64-bit heap address (lowleveldesign)', () => {
    const record = parse('heap-stat/lowleveldesign-x64-heap-stat-h.txt');
    expect(record.heap).to.equal('0xbd4aef0000');
    expect(record.buckets[0]).to.deep.equal({
      size: 0x28ca,
      count: 1,
      totalBytes: 0x28ca,
      percent: 30.72,
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads every bucket so that size x count = total, which only holds when all three are hex', () => {
    for (const file of transcriptFiles('heap-stat', /heap-stat-h\.txt$/)) {
      for (const bucket of parse(file).buckets) {
        expect(bucket.size * bucket.count, `${file} ${bucket.size}`).to.equal(bucket.totalBytes);
      }
    }
  });

  it('does not force `!heap -l` (a leak scan of entries, not size buckets) into buckets', () => {
    const record = parse('heap-stat/heap-l-docs-xp-era.txt');
    expect(record.buckets).to.deep.equal([]);
    expect(record.warnings).to.include('unrecognised line: Heap 00280000');
    expect(record.warnings).to.include(
      'unrecognised line: 001b2958  001b2960  00170000  00000000        40        18  busy extra',
    );
  });

  it('has a test for every heap-stat transcript', () => {
    expect(untestedTranscripts(import.meta.url, 'heap-stat')).to.deep.equal([]);
  });
});
