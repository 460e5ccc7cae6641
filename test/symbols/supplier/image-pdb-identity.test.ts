// The PDB identity read from an image's debug directory (src/symbols/supplier/image-pdb-identity.ts),
// only from the build the dump names: the real clang + lld symcrash.exe (scripts/build-pdb-targets.sh).
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PositionedFileReader } from '../../../src/minidump/file-reader.js';
import { readImageIdentity } from '../../../src/symbols/index.js';
import { imagePdbIdentity } from '../../../src/symbols/supplier/image-pdb-identity.js';
import { pdbTargetReady } from '../../helpers/pdb-targets.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { targetPath } from '../../helpers/wine.js';

describe('image PDB identity (src/symbols/supplier/image-pdb-identity.ts)', function () {
  before(function () {
    if (!pdbTargetReady('symcrash')) this.skip(); // scripts/build-pdb-targets.sh not run
  });

  it("gives the image's PDB name and debug id for the build the dump names", async () => {
    const path = targetPath('symcrash');
    const reader = await PositionedFileReader.open(path);
    const expected = await readImageIdentity(reader, path).finally(() => reader.close());
    const notes: string[] = [];
    const found = await imagePdbIdentity(path, expected.codeId.toLowerCase(), notes);
    expect(found).to.deep.equal({
      pdbName: expected.codeView?.pdbName,
      debugId: expected.codeView?.debugId,
    });
    expect(notes).to.deep.equal([]);
  });

  it('refuses another build and a file that is no image, saying why in the notes', async () => {
    const notes: string[] = [];
    expect(await imagePdbIdentity(targetPath('symcrash'), '00000000100', notes)).to.equal(
      undefined,
    );
    expect(notes[0]).to.match(/is another build \(.*the dump has 00000000100\)/);
    const junk = join(makeTempDir('image-pdb-identity'), 'junk.exe');
    writeFileSync(junk, 'not a PE image at all');
    expect(await imagePdbIdentity(junk, '00000000100', notes)).to.equal(undefined);
    expect(notes).to.have.length(2);
  });
});
