import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGcDump } from '../../../../src/engine/dialects/dotnet-gcdump/gcdump-file.js';
import {
  typeHistogram,
  typeNameOf,
} from '../../../../src/engine/dialects/dotnet-gcdump/type-histogram.js';
import { REPO_ROOT } from '../../../helpers/wine.js';

const DIR = join(REPO_ROOT, 'test', 'fixtures', 'gcdump');

/** The recorded `dotnet-gcdump report` of the same snapshot: totals and count per type name. */
function recordedReport(n: number): { bytes: number; counts: Map<string, number> } {
  const text = readFileSync(join(DIR, `sessions-${n}.report.txt`), 'utf8');
  const body = text.slice(text.indexOf('# ---\n') + 6).split('\n');
  // "     10,176,480  GC Heap bytes"
  const bytes = Number((body[0] ?? '').replace(/[ ,]|GC Heap bytes/g, ''));
  const counts = new Map<string, number>();
  for (const line of body) {
    // "         16,408        41  System.Byte[] (Bytes > 10K)  [System.Private.CoreLib.dll]"
    const m = /^\s*[\d,]+\s+([\d,]+)\s{2}(.+?)(?:\s{2}\[[^\]]*\])?$/.exec(line);
    if (m === null) continue;
    const name = typeNameOf(m[2] ?? '');
    counts.set(name, (counts.get(name) ?? 0) + Number((m[1] ?? '').replace(/,/g, '')));
  }
  return { bytes, counts };
}

describe('dotnet-gcdump: per-type counts and bytes from the .gcdump file', () => {
  for (const n of [1, 2, 3]) {
    it(`snapshot ${n}: the same counts per type as dotnet-gcdump report, and its heap total`, () => {
      const dump = readGcDump(readFileSync(join(DIR, `sessions-${n}.gcdump`)), `sessions-${n}`);
      const rows = typeHistogram(dump);
      const report = recordedReport(n);
      expect(rows.reduce((sum, r) => sum + r.bytes, 0)).to.equal(report.bytes);
      expect(dump.totalSize).to.equal(report.bytes);
      const mine = new Map(rows.map((r) => [r.name, r.count]));
      expect(mine).to.deep.equal(report.counts);
    });
  }

  it('sums each type over its objects (the report prints only the first object size)', () => {
    const dump = readGcDump(readFileSync(join(DIR, 'sessions-3.gcdump')), 'sessions-3');
    const rows = new Map(typeHistogram(dump).map((r) => [r.name, r]));
    // 16 KB payloads, one per tick: the program printed tick 50 before the snapshot.
    const sessions = rows.get('CdbHarness.Targets.SessionState');
    expect(sessions?.count).to.be.at.least(50);
    const bytes = rows.get('System.Byte[]');
    expect(bytes?.bytes).to.be.at.least(50 * 16 * 1024);
    // One 4 MB LargeBlob's long[].
    expect(rows.get('System.Int64[]')?.bytes).to.be.at.least(4 * 1024 * 1024);
  });

  it('cuts PerfView size buckets off type names', () => {
    expect(typeNameOf('System.Byte[] (Bytes > 10K)')).to.equal('System.Byte[]');
    expect(typeNameOf('System.Int64[] (Bytes > 1M)')).to.equal('System.Int64[]');
    expect(typeNameOf('System.Object[] (Bytes > 1K)')).to.equal('System.Object[]');
    expect(typeNameOf('CdbHarness.Targets.SessionState')).to.equal(
      'CdbHarness.Targets.SessionState',
    );
  });
});
