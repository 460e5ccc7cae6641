// A recorded `C:\` path is looked up only in the Wine prefix the user names: the example dumps
// get the same buckets with no prefix, with the project's prefix at ~/.wine, with $WINEPREFIX
// naming it and with an empty HOME (before, three of the five example buckets changed when
// ~/.wine held the prefix: `thrower+0x1f200 | thrower+0xc4a4` became
// `thrower+0xc121 | thrower+0x23080`, issue 34). Naming the prefix (`--wine-prefix`) still
// finds the system DLLs there.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { localPaths } from '../../../src/symbols/supplier/local-paths.js';
import {
  BUCKET_ENVIRONMENTS,
  bucketsIn,
  PROJECT_PREFIX,
  type BucketRun,
} from '../../helpers/bucket-environments.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

describe('local paths: a recorded C:\\ path maps only into a named prefix', function () {
  this.timeout(600_000);

  it('maps C:\\ nowhere without a named prefix, whatever the environment says', () => {
    const saved = { home: process.env['HOME'], prefix: process.env['WINEPREFIX'] };
    process.env['WINEPREFIX'] = PROJECT_PREFIX;
    try {
      expect(localPaths('C:\\windows\\system32\\ntdll.dll', undefined)).to.deep.equal([]);
    } finally {
      if (saved.prefix === undefined) delete process.env['WINEPREFIX'];
      else process.env['WINEPREFIX'] = saved.prefix;
    }
    expect(localPaths('C:\\windows\\system32\\ntdll.dll', '/p')).to.deep.equal([
      '/p/drive_c/windows/system32/ntdll.dll',
    ]);
  });

  describe('the example dumps in every environment', () => {
    const runs = new Map<string, BucketRun>();
    before(async function () {
      if (!existsSync(join(PROJECT_PREFIX, 'drive_c'))) {
        console.log(`      skipped: no Wine prefix at ${PROJECT_PREFIX} (npm run setup makes it)`);
        this.skip();
      }
      for (const kind of BUCKET_ENVIRONMENTS) runs.set(kind, await bucketsIn(kind, [EXAMPLES]));
    });

    it('gives the same bucket to every dump with no prefix, the prefix at ~/.wine, $WINEPREFIX and an empty HOME', () => {
      const plain = runs.get('no-prefix');
      expect(Object.keys(plain?.ids ?? {})).to.have.length.above(4);
      for (const kind of BUCKET_ENVIRONMENTS) {
        expect(runs.get(kind)?.signatures, kind).to.deep.equal(plain?.signatures);
        expect(runs.get(kind)?.ids, kind).to.deep.equal(plain?.ids);
      }
      // No image anywhere came from the prefix nobody named.
      for (const kind of BUCKET_ENVIRONMENTS) {
        const paths = Object.values(runs.get(kind)?.images ?? {}).flatMap((m) => Object.values(m));
        expect(
          paths.filter((p) => p.includes('drive_c')),
          kind,
        ).to.deep.equal([]);
      }
    });

    it('looks in the prefix named by --wine-prefix', async () => {
      const named = await bucketsIn('empty-home', [EXAMPLES], ['--wine-prefix', PROJECT_PREFIX]);
      const paths = Object.values(named.images).flatMap((m) => Object.values(m));
      expect(paths.some((p) => p.startsWith(join(PROJECT_PREFIX, 'drive_c')))).to.equal(true);
    });
  });
});
