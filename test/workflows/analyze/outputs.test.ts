// Links planted in --out are never written through (issue 30, item 8): `records.ndjson` -> a
// victim once had the victim cut and appended to, `summary.json.tmp` -> a victim had it
// overwritten. Outputs open with O_NOFOLLOW (a hard link or a non-file is refused too), temp files
// are new names created exclusively, and a link at a final name is replaced, not followed.
import { expect } from 'chai';
import { linkSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDumps } from '../../../src/workflows/analyze/analyze.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { dumpBatch } from '../../queue/queue-helpers.js';

const SECRET = 'victim: do not touch\n';

describe('analyze outputs and links planted in --out', function () {
  this.timeout(120_000);

  it('refuses records.ndjson as a symbolic link or a hard link; the victim is untouched', async () => {
    const dir = makeTempDir('links-records');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, SECRET);
    const input = dumpBatch(1);
    // A symbolic link, then a hard link, where the records file goes.
    for (const plant of [symlinkSync, linkSync]) {
      const out = join(dir, `out-${plant.name}`);
      mkdirSync(out);
      plant(victim, join(out, 'records.ndjson'));
      let error: unknown;
      try {
        await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin', resume: true });
      } catch (caught) {
        error = caught;
      }
      expect(String(error)).to.match(
        /records\.ndjson is a (symbolic link|file with 2 names).*refused/,
      );
      expect(readFileSync(victim, 'utf8')).to.equal(SECRET);
    }
  });

  it('replaces links at summary.json and report.html, and never writes through the old temp names', async () => {
    const dir = makeTempDir('links-summary');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, SECRET);
    const out = join(dir, 'out');
    mkdirSync(out);
    for (const name of ['summary.json', 'report.html', 'summary.json.tmp', 'report.html.tmp']) {
      symlinkSync(victim, join(out, name));
    }
    await analyzeDumps({ inputs: [dumpBatch(2)], outDir: out, engine: 'builtin' });
    expect(readFileSync(victim, 'utf8')).to.equal(SECRET);
    expect(lstatSync(join(out, 'summary.json')).isFile()).to.equal(true);
    expect(lstatSync(join(out, 'report.html')).isFile()).to.equal(true);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).to.include({ dumps: 2 });
  });
});
