import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { requireExistingPrefix, winePrefixOf } from '../../../src/platform/wine/prefix.js';
import { TargetError } from '../../../src/errors.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('the Wine prefix a listing looks at', () => {
  it('is WINEPREFIX, else ~/.wine', () => {
    expect(winePrefixOf({ WINEPREFIX: '/p/.wine/', HOME: '/h' })).to.equal('/p/.wine');
    expect(winePrefixOf({ HOME: '/h' })).to.equal('/h/.wine');
  });

  it('is never created: a missing prefix is a TargetError naming it', () => {
    const missing = join(makeTempDir('no-prefix'), 'pfx');
    expect(() => requireExistingPrefix({ WINEPREFIX: missing }))
      .to.throw(TargetError)
      .with.property('message')
      .that.contains(missing);
    expect(existsSync(missing)).to.equal(false);
  });
});
