// `watch -- program`: after the -n-th dump the session detaches and the launched program runs on
// to its own end. That end is not a lost target: exit 0, "exited by itself", not exit 1 and
// "target NOT found running". Real winedbg, real program (raise.exe raises 3 times, then exits).
import { expect } from 'chai';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT, wineEnv, wineRigReady } from '../helpers/wine.js';

(wineRigReady() ? describe : describe.skip)(
  'watch -- program that ends after the dump',
  function () {
    this.timeout(120_000);

    it('exits 0 and says the program exited by itself', async () => {
      const out = join(makeTempDir('watchend'), 'o');
      const run = await runCli(
        [
          'watch',
          '--engine',
          'winedbg',
          '-e',
          '1',
          '-n',
          '1',
          '--out',
          out,
          '--',
          join(REPO_ROOT, 'build', 'targets', 'raise.exe'),
          // No pause between raises: the program is over within moments of the detach, before
          // the harness lists processes (with raise's default 100 ms it may still be running).
          '-i',
          '0',
          '-n',
          '3',
          'e0000001',
        ],
        { env: wineEnv(), timeoutMs: 110_000 },
      );
      expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(0);
      const text = `${run.stdout}\n${run.stderr}`;
      expect(text).to.match(/1 dump\(s\)/);
      expect(text).to.match(/target exited by itself/);
      expect(text).to.not.match(/NOT found running/);
    });
  },
);
