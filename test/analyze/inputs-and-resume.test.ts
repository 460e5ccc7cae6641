// What a folder scan takes (Windows Error Reporting names its dumps .mdmp and .hdmp; --ext adds
// more) and what --resume skips (the same path, size and content: a copy under another name is
// its own input). Real dumps written by winedbg (examples/dumps or the rig's cache).
import { expect } from 'chai';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    // Two files, two dumps: the newer record of first.dmp replaces the older in the summary.
    expect(third.summary.dumps).to.equal(2);
    expect(third.summary.failures.map((f) => f.file.split('/').pop())).to.deep.equal(['first.dmp']);
    expect(third.summary.buckets.flatMap((b) => b.files)).to.have.length(1);
  });

  it('--resume over a cut-off last line removes it and analyses that dump again', async () => {
    const av = await dumpOf('av-write');
    const input = dir('torn-in');
    const out = join(dir('torn-out'), 'out');
    copyFileSync(av, join(input, 'a.dmp'));
    copyFileSync(av, join(input, 'b.dmp'));
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin', jobs: 1 });
    const path = join(out, 'records.ndjson');
    const whole = readFileSync(path, 'utf8');
    const firstEnd = whole.indexOf('\n') + 1;
    // The run was killed while writing b.dmp's record: half a line, no newline.
    writeFileSync(path, whole.slice(0, firstEnd + 100));
    const again = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      resume: true,
    });
    expect(again.skipped.resumed).to.equal(1);
    expect(again.analyzed).to.equal(1);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).to.equal('');
    expect(lines).to.have.length(2);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).to.not.throw();
    expect(again.summary.dumps).to.equal(2);
  });

  it('--resume over a last record that lost only its newline: redone once, never doubled', async () => {
    const av = await dumpOf('av-write');
    const input = dir('nl-in');
    const out = join(dir('nl-out'), 'out');
    copyFileSync(av, join(input, 'a.dmp'));
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
    const path = join(out, 'records.ndjson');
    writeFileSync(path, readFileSync(path, 'utf8').trimEnd());
    const again = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      resume: true,
    });
    expect(again.analyzed).to.equal(1);
    expect(again.summary.dumps).to.equal(1);
    expect(readNdjson(path)).to.have.length(1);
  });

  it('keys on the resolved path, size and hash', () => {
    const base = { file: '/d/a.dmp', size: 10, sha256: 'ab' };
    expect(resumeKey(base)).to.equal(resumeKey({ ...base, file: '/d/x/../a.dmp' }));
    expect(resumeKey(base)).to.not.equal(resumeKey({ ...base, file: '/d/b.dmp' }));
    expect(resumeKey(base)).to.not.equal(resumeKey({ ...base, size: 11 }));
    expect(resumeKey(base)).to.not.equal(resumeKey({ ...base, sha256: 'cd' }));
  });
});
