// What a folder scan takes (Windows Error Reporting names its dumps .mdmp and .hdmp; --ext adds
// more) and what --resume skips (the same path, size and content: a copy under another name is
// its own input). Real dumps written by winedbg (examples/dumps or the rig's cache).
import { expect } from 'chai';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { resumeKey } from '../../src/workflows/analyze/file-hash.js';
import { expandInputs, normalizeExtension } from '../../src/workflows/analyze/inputs.js';
import { dumpOf, readNdjson, tempDir } from './fixtures.js';

describe('analyze inputs: extensions and --resume', function () {
  this.timeout(60_000);
  const made: string[] = [];
  const dir = (label: string) => {
    const d = tempDir(label);
    made.push(d);
    return d;
  };
  after(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  it('a folder scan takes .dmp, .mdmp and .hdmp in any case, and --ext adds more', async () => {
    const av = await dumpOf('av-write');
    const root = dir('ext');
    mkdirSync(join(root, 'ReportArchive', 'AppCrash_x'), { recursive: true });
    const names = [
      'a.dmp',
      'ReportArchive/AppCrash_x/WERInternalMetadata.mdmp',
      'ReportArchive/AppCrash_x/memory.HDMP',
      'b.dump',
      'notes.txt',
    ];
    for (const name of names) copyFileSync(av, join(root, name));
    const plain = await expandInputs([root]);
    expect(plain.files.map((f) => f.slice(root.length + 1))).to.deep.equal([
      'ReportArchive/AppCrash_x/WERInternalMetadata.mdmp',
      'ReportArchive/AppCrash_x/memory.HDMP',
      'a.dmp',
    ]);
    const more = await expandInputs([root], process.cwd(), ['dump', '*.TXT']);
    expect(more.files.map((f) => f.slice(root.length + 1))).to.include.members([
      'b.dump',
      'notes.txt',
    ]);
    expect(normalizeExtension('.Core')).to.equal('.core');
    expect(() => normalizeExtension('../x')).to.throw(/--ext wants a file extension/);
  });

  it('--resume skips what is already recorded, but analyses a copy under another name', async () => {
    const av = await dumpOf('av-write');
    const input = dir('resume-in');
    const out = join(dir('resume-out'), 'out');
    copyFileSync(av, join(input, 'first.dmp'));
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
    expect(readNdjson(join(out, 'records.ndjson'))).to.have.length(1);

    // Same bytes, new name: a new input. The original: skipped.
    copyFileSync(av, join(input, 'copy-of-first.dmp'));
    const second = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      resume: true,
    });
    expect(second.skipped.resumed).to.equal(1);
    const records = readNdjson(join(out, 'records.ndjson'));
    expect(records.map((r) => r.file.split('/').pop()).sort()).to.deep.equal([
      'copy-of-first.dmp',
      'first.dmp',
    ]);
    expect(records[0]?.sha256).to.equal(records[1]?.sha256);

    // Same name, different content (the file was replaced): analysed again.
    writeFileSync(join(input, 'first.dmp'), Buffer.from('not a dump any more'));
    const third = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      resume: true,
    });
    expect(third.skipped.resumed).to.equal(1); // only the copy, unchanged
    expect(readNdjson(join(out, 'records.ndjson'))).to.have.length(3);
  });

  it('keys on the resolved path, size and hash', () => {
    const base = { file: '/d/a.dmp', size: 10, sha256: 'ab' };
    expect(resumeKey(base)).to.equal(resumeKey({ ...base, file: '/d/x/../a.dmp' }));
    expect(resumeKey(base)).to.not.equal(resumeKey({ ...base, file: '/d/b.dmp' }));
    expect(resumeKey(base)).to.not.equal(resumeKey({ ...base, size: 11 }));
    expect(resumeKey(base)).to.not.equal(resumeKey({ ...base, sha256: 'cd' }));
  });
});
