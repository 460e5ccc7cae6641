// One signature everywhere: the bucket bucketOfDump gives a dump (what `watch` logs for each dump
// it writes) is the bucket `analyze --engine builtin` records for the same dump.
import { expect } from 'chai';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { analyzeDumps } from '../../../src/workflows/analyze/analyze.js';
import { createSymbolSupplier } from '../../../src/symbols/supplier/symbol-supplier.js';
import { bucketOfDump } from '../../../src/workflows/analyze/dump-bucket.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');
const NAMES = ['av-write-a.dmp', 'cpp-throw.dmp', 'clr-raise.dmp', 'attach-break.dmp'];

describe('dump bucket (analyze and watch sign a dump one way)', () => {
  it('gives each dump the id analyze --engine builtin records for it, with the images used', async () => {
    const input = makeTempDir('bucket-in');
    for (const name of NAMES) copyFileSync(join(EXAMPLES, name), join(input, name));
    const out = makeTempDir('bucket-out');
    // No Wine prefix and no symbol path: both sides see the same (no) images and symbols.
    const env = { HOME: makeTempDir('bucket-home') };
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin', env });
    const records = readFileSync(join(out, 'records.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as AnalyzeDumpRecord);
    expect(records.map((r) => r.file.split('/').pop()).sort()).to.deep.equal([...NAMES].sort());
    const ids = new Set<string>();
    const supplier = await createSymbolSupplier({ env });
    try {
      for (const record of records) {
        const found = await bucketOfDump(record.file, { supplier });
        expect(found.bucket, record.file).to.deep.equal(record.bucket);
        expect(found.images, record.file).to.deep.equal(record.images);
        ids.add(found.bucket?.id ?? '');
      }
    } finally {
      await supplier.close();
    }
    // Different crashes, different buckets: the equality above is not of empty signatures.
    expect(ids.size).to.equal(NAMES.length);
  });

  it('answers a file that is not a dump with no bucket and the reason', async () => {
    const dir = makeTempDir('bucket-bad');
    const path = join(dir, 'empty.dmp');
    copyFileSync(join(EXAMPLES, 'README.md'), path);
    const found = await bucketOfDump(path);
    expect(found.bucket).to.equal(null);
    expect(found.error).to.match(/not a minidump/);
  });
});
