// The summary's order (src/report/analyze/summary.ts): buckets by count, then by id; the top
// exception by count, then by code. Ids and codes are compared as code points, which must give
// the order localeCompare gives for them (the order summary.json always had).
import { expect } from 'chai';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { SummaryBuilder } from '../../../src/report/analyze/summary.js';
import { emptyRecord } from '../../../src/workflows/analyze/analyze-one.js';
import { xorshift32 } from '../../helpers/seeded-random.js';

function record(file: string, bucketId: string, code: string): AnalyzeDumpRecord {
  return {
    ...emptyRecord(file, { sha256: '0'.repeat(64), size: 1 }, 'builtin'),
    ok: true,
    exception: { code, name: 'Access violation' },
    bucket: { id: bucketId, signature: `${code} | app!f`, algorithm: 'cdbh-sig-2' },
  };
}

describe('analyze summary (src/report/analyze/summary.ts)', () => {
  it('orders tied buckets by id and tied exceptions by code, as localeCompare does', () => {
    const next = xorshift32(0x51);
    const hex = (digits: number) =>
      Array.from({ length: digits }, () => (next() % 16).toString(16)).join('');
    const ids = Array.from({ length: 60 }, () => hex(16));
    const codes = Array.from({ length: 60 }, () => `0x${hex(8)}`);
    const summary = new SummaryBuilder('cdbh-sig-2');
    // One dump each: every bucket and every code ties on its count.
    ids.forEach((id, i) => summary.add(record(`/d/${i}.dmp`, id, codes[i]!)));
    const built = summary.build({ generatedAt: new Date(0) });
    expect(built.buckets.map((b) => b.id)).to.deep.equal(
      [...ids].sort((a, b) => a.localeCompare(b)),
    );
    expect(built.topException?.code).to.equal([...codes].sort((a, b) => a.localeCompare(b))[0]);
  });

  it('puts the bigger bucket first whatever its id', () => {
    const summary = new SummaryBuilder('cdbh-sig-2');
    summary.add(record('/d/1.dmp', 'ffffffffffffffff', '0xc0000005'));
    summary.add(record('/d/2.dmp', 'ffffffffffffffff', '0xc0000005'));
    summary.add(record('/d/3.dmp', '0000000000000000', '0xc0000409'));
    const built = summary.build({ generatedAt: new Date(0) });
    expect(built.buckets.map((b) => [b.id, b.count])).to.deep.equal([
      ['ffffffffffffffff', 2],
      ['0000000000000000', 1],
    ]);
    expect(built.topException?.code).to.equal('0xc0000005');
  });
});
