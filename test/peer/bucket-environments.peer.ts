// The peer tier's half of the bucket-stability check (issue 34): Breakpad's 23 Windows test dumps
// (google/breakpad src/processor/testdata, read in place from ../shared/peer-corpus) analysed
// with no Wine prefix, with the project's prefix at ~/.wine, with $WINEPREFIX naming it and with
// an empty HOME, without and with Breakpad's .sym files: every dump keeps its bucket. The example
// dumps get the same check in the ordinary tier (test/symbols/supplier/local-paths.test.ts).
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUCKET_ENVIRONMENTS,
  bucketsIn,
  PROJECT_PREFIX,
  type BucketRun,
} from '../helpers/bucket-environments.js';
import { peerCorpus } from './breakpad-compare.js';

const corpus = peerCorpus();

describe('peer tier: Breakpad test dumps keep their buckets in every environment', function () {
  this.timeout(900_000);

  before(function () {
    if (corpus === undefined) {
      console.log('      skipped: no peer corpus (../shared/peer-corpus or $CDBH_PEER_CORPUS)');
      this.skip();
    }
    if (!existsSync(join(PROJECT_PREFIX, 'drive_c'))) {
      console.log(`      skipped: no Wine prefix at ${PROJECT_PREFIX} (npm run setup makes it)`);
      this.skip();
    }
  });

  for (const mode of ['nosym', 'sym'] as const) {
    it(`gives every dump one bucket (${mode})`, async () => {
      const dumps = join(corpus ?? '', 'dumps');
      const extra = mode === 'sym' ? ['--symbol-path', join(corpus ?? '', 'symbols')] : [];
      const runs = new Map<string, BucketRun>();
      for (const kind of BUCKET_ENVIRONMENTS) runs.set(kind, await bucketsIn(kind, [dumps], extra));
      const plain = runs.get('no-prefix');
      expect(Object.keys(plain?.ids ?? {})).to.have.length.above(20);
      for (const kind of BUCKET_ENVIRONMENTS) {
        expect(runs.get(kind)?.signatures, `${mode} ${kind}`).to.deep.equal(plain?.signatures);
        expect(runs.get(kind)?.ids, `${mode} ${kind}`).to.deep.equal(plain?.ids);
      }
    });
  }
});
