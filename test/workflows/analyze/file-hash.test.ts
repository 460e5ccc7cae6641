// sha256File (src/workflows/analyze/file-hash.ts): the hash of the file's bytes, streamed for a big
// file, read whole and handed back for a small one (analyze's processor then reads those bytes).
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { analyzeDumps } from '../../../src/workflows/analyze/analyze.js';
import { sha256File } from '../../../src/workflows/analyze/file-hash.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const DUMP = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');
const expected = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('sha256File (src/workflows/analyze/file-hash.ts)', () => {
  it('keeps a file no bigger than keepUpTo and hashes exactly those bytes', async () => {
    const content = readFileSync(DUMP);
    const hashed = await sha256File(DUMP, undefined, { keepUpTo: content.length });
    expect(hashed.size).to.equal(content.length);
    expect(hashed.sha256).to.equal(expected(content));
    expect(hashed.bytes?.equals(content)).to.equal(true);
  });

  it('streams a bigger file (more than one 1 MiB read) and keeps nothing', async () => {
    const path = join(makeTempDir('file-hash'), 'big.dmp');
    const content = Buffer.alloc(2.5 * 1024 * 1024);
    for (let i = 0; i < content.length; i++) content[i] = (i * 31) & 0xff;
    writeFileSync(path, content);
    const hashed = await sha256File(path, undefined, { keepUpTo: 1024 * 1024 });
    expect(hashed.bytes).to.equal(undefined);
    expect(hashed.size).to.equal(content.length);
    expect(hashed.sha256).to.equal(expected(content));
    expect((await sha256File(path)).sha256).to.equal(hashed.sha256);
  });

  it('keeps an empty file as zero bytes (the processor then says it is not a dump)', async () => {
    const path = join(makeTempDir('file-hash'), 'empty.dmp');
    writeFileSync(path, '');
    const hashed = await sha256File(path, undefined, { keepUpTo: 100 });
    expect(hashed.size).to.equal(0);
    expect(hashed.bytes?.length).to.equal(0);
    expect(hashed.sha256).to.equal(expected(Buffer.alloc(0)));
  });

  it('refuses a FIFO and a device at once when small files are kept, naming what they are', async () => {
    const fifo = join(makeTempDir('file-hash'), 'pipe.dmp');
    execFileSync('mkfifo', [fifo]);
    // Opened for reading, a FIFO with no writer would block this test for good.
    const refused = async (path: string) =>
      sha256File(path, undefined, { keepUpTo: 1024 }).then(
        () => 'read',
        (error: Error) => error.message,
      );
    expect(await refused(fifo)).to.equal(
      `${fifo} is not a regular file (FIFO); refused without reading it`,
    );
    expect(await refused('/dev/zero')).to.equal(
      '/dev/zero is not a regular file (character device); refused without reading it',
    );
  });

  it('says why a missing file cannot be opened', async () => {
    const path = join(makeTempDir('file-hash'), 'gone.dmp');
    const message = await sha256File(path, undefined, { keepUpTo: 1024 }).then(
      () => 'read',
      (error: Error) => error.message,
    );
    expect(message).to.match(/^cannot open .*gone\.dmp: no such file or folder \(ENOENT\)$/);
  });

  it('refuses a sparse 100 GB dump at once, over the default --max-dump-size, with the reason', async () => {
    const dir = makeTempDir('sparse-dump');
    const path = join(dir, 'sparse.dmp');
    // A real dump's bytes at the start, then a hole to 100 GB (issue 30: 400 s of hashing).
    writeFileSync(path, readFileSync(DUMP));
    truncateSync(path, 100 * 1024 ** 3);
    const out = join(dir, 'out');
    const result = await analyzeDumps({ inputs: [path], outDir: out, engine: 'builtin' });
    expect(result.summary).to.include({ dumps: 1, failed: 1 });
    const [line] = readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n');
    const record = JSON.parse(line!) as AnalyzeDumpRecord;
    expect(record.error?.code).to.equal('IO');
    expect(record.error?.message).to.match(
      /sparse\.dmp is 100\.0 GiB, over the 64\.0 GiB --max-dump-size: not hashed or analysed/,
    );
    // --max-dump-size lower than the file: the same record for an ordinary dump.
    const refused = await sha256File(DUMP, undefined, { keepUpTo: 1 << 21, maxBytes: 1024 }).then(
      () => 'hashed',
      (error: Error) => error.message,
    );
    expect(refused).to.match(/is \d+ bytes, over the 1024 bytes --max-dump-size/);
  });
});
