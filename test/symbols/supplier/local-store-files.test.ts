// The files of a key already in a local store: each candidate under each case spelling, found
// with a stat that answers "missing" without an exception, and never an error for a path that
// cannot exist (a file where a folder should be, a folder where a file should be).
import { expect } from 'chai';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { existingFiles, isFile } from '../../../src/symbols/supplier/local-store-files.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('symbols: files already in a local store', () => {
  it('tells a regular file (also through a link) from a folder, a missing path and a path through a file', () => {
    const dir = makeTempDir('store-files');
    writeFileSync(join(dir, 'app.sym'), 'MODULE windows x86 0 app.pdb\n');
    mkdirSync(join(dir, 'app.pdb'));
    symlinkSync(join(dir, 'app.sym'), join(dir, 'link.sym'));
    symlinkSync(join(dir, 'gone.sym'), join(dir, 'dangling.sym'));
    expect(isFile(join(dir, 'app.sym'))).to.equal(true);
    expect(isFile(join(dir, 'link.sym'))).to.equal(true);
    expect(isFile(join(dir, 'app.pdb'))).to.equal(false);
    expect(isFile(join(dir, 'missing.sym'))).to.equal(false);
    expect(isFile(join(dir, 'dangling.sym'))).to.equal(false);
    expect(isFile(join(dir, 'app.sym', 'under-a-file.sym'))).to.equal(false); // ENOTDIR
  });

  it('finds each candidate once, under its first case spelling present, and skips cabinets', () => {
    const dir = makeTempDir('store-files');
    mkdirSync(join(dir, 'app.pdb', 'ABC1'), { recursive: true });
    writeFileSync(join(dir, 'app.pdb', 'ABC1', 'app.sym'), 'MODULE windows x86 ABC1 app.pdb\n');
    mkdirSync(join(dir, 'lib.pdb', 'abc1'), { recursive: true });
    writeFileSync(join(dir, 'lib.pdb', 'abc1', 'lib.pdb'), 'not read here');
    writeFileSync(join(dir, 'lib.pd_'), 'a cabinet');
    const found = existingFiles(
      dir,
      [
        { relative: 'app.pdb/ABC1/app.sym', format: 'breakpad' },
        { relative: 'lib.pdb/ABC1/lib.pdb', format: 'pdb' },
        { relative: 'lib.pd_', format: 'cab' },
        { relative: 'none.pdb/ABC1/none.pdb', format: 'pdb' },
      ],
      'here',
    );
    expect(found).to.deep.equal([
      {
        path: join(dir, 'app.pdb/ABC1/app.sym'),
        format: 'breakpad',
        from: 'here',
        downloaded: false,
      },
      { path: join(dir, 'lib.pdb/abc1/lib.pdb'), format: 'pdb', from: 'here', downloaded: false },
    ]);
  });
});
