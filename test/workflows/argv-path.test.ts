// A path from argv whose name had bytes that are not UTF-8 (U+FFFD in their place): found again
// in its folder when exactly one name there reads the same; none or two such names leave it as
// given with a reason that says what works (analyze FOLDER).
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathFromArgv } from '../../src/workflows/argv-path.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const raw = (dir: string, name: string) =>
  Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(name, 'latin1')]);

describe('paths from argv with U+FFFD', function () {
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  it('finds the one name that reads the same, in a folder whose name is bytes too', async () => {
    const root = makeTempDir('argv-path');
    mkdirSync(raw(root, 'sub\xe9'));
    const file = Buffer.concat([
      raw(root, 'sub\xe9'),
      Buffer.from('/', 'latin1'),
      Buffer.from('x\xff.dmp', 'latin1'),
    ]);
    writeFileSync(file, 'x');
    const found = await pathFromArgv(join(root, 'sub\uFFFD', 'x\uFFFD.dmp'));
    expect(found.unresolved).to.equal(undefined);
    expect(Buffer.from(found.path).equals(file)).to.equal(true);
    // A path with no U+FFFD, or one that exists as written, is left alone.
    expect((await pathFromArgv(join(root, 'plain.dmp'))).path).to.equal(join(root, 'plain.dmp'));
  });

  it('says why when no name or two names match', async () => {
    const root = makeTempDir('argv-path');
    writeFileSync(raw(root, 't\xff.dmp'), 'a');
    writeFileSync(raw(root, 't\xfe.dmp'), 'b');
    const two = await pathFromArgv(join(root, 't\uFFFD.dmp'));
    expect(two.path).to.equal(join(root, 't\uFFFD.dmp'));
    expect(two.unresolved).to.match(/2 names in its folder read as .*analyze FOLDER/);
    const none = await pathFromArgv(join(root, 'u\uFFFD.dmp'));
    expect(none.unresolved).to.match(/no name in its folder matches/);
  });
});
