// RecordAppender (src/report/analyze/records-file.ts): lines written whole, in the order append
// was called, by the time append returns; a closed appender refuses; a torn last line is cut.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { RecordAppender, readRecords } from '../../../src/report/analyze/records-file.js';
import { emptyRecord } from '../../../src/workflows/analyze/analyze-one.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

function record(i: number): AnalyzeDumpRecord {
  const hashed = { size: i, sha256: i.toString(16).padStart(64, '0') };
  return {
    ...emptyRecord(`/dumps/${i}.dmp`, hashed, 'builtin'),
    ok: true,
    attempts: 1,
    dumpKind: 'mini',
    // Lines of different lengths, some long: interleaved bytes would break the JSON.
    warnings: ['w'.repeat((i * 7919) % 20000)],
  };
}

describe('RecordAppender (src/report/analyze/records-file.ts)', () => {
  it('writes each line whole, in call order, before append returns', async () => {
    const path = join(makeTempDir('records-file'), 'records.ndjson');
    const appender = await RecordAppender.open(path);
    const pending: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      pending.push(appender.append(record(i), i % 2 === 0 ? JSON.stringify(record(i)) : undefined));
      expect(readFileSync(path, 'utf8').split('\n')).to.have.length(i + 2);
    }
    await Promise.all(pending);
    await appender.close();
    const files: string[] = [];
    for await (const r of readRecords(path)) files.push(r.file);
    expect(files).to.deep.equal(Array.from({ length: 200 }, (_, i) => `/dumps/${i}.dmp`));
  });

  it('refuses a record once closed', async () => {
    const appender = await RecordAppender.open(join(makeTempDir('records-file'), 'r.ndjson'));
    await appender.close();
    const refused = await appender.append(record(1)).then(
      () => 'written',
      (error: Error) => error.message,
    );
    expect(refused).to.equal('record file already closed');
  });

  it('cuts a torn last line when opened and appends after the last whole one', async () => {
    const path = join(makeTempDir('records-file'), 'records.ndjson');
    writeFileSync(path, `${JSON.stringify(record(1))}\n{"schemaVersion":1,"fi`);
    const appender = await RecordAppender.open(path);
    expect(appender.torn).to.equal('{"schemaVersion":1,"fi'.length);
    await appender.append(record(2));
    await appender.close();
    const files: string[] = [];
    for await (const r of readRecords(path)) files.push(r.file);
    expect(files).to.deep.equal(['/dumps/1.dmp', '/dumps/2.dmp']);
  });
});
