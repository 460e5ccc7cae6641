// Root hook plugin (.mocharc.json `require`): each test run gets its own temporary folder, so the
// run's files never mix with other runs' in the shared system temp folder, and nothing outlives
// the run. At load time, before any test file, TMPDIR (and TMP/TEMP) point at
// <tmp>/cdbh-run-XXXXXX; Node's os.tmpdir() and every child process follow it. After the last
// test, folders made with test/helpers/temp-dir.ts are removed, then the run folder; anything
// else still in it is a leak (a test or the code under test made a file and never removed it)
// and fails the run by name.
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTempDirs } from '../helpers/temp-dir.js';

const systemTmp = tmpdir();
const runDir = mkdtempSync(join(systemTmp, 'cdbh-run-'));
// tsx keeps its compile cache in <tmp>/tsx-<uid>: child processes started with `--import tsx`
// (the cdb emulator, the CLI) keep using the shared one instead of compiling again every run.
const TSX_CACHE_RE = /^tsx-\d+$/;
for (const entry of readdirSync(systemTmp)) {
  if (TSX_CACHE_RE.test(entry)) symlinkSync(join(systemTmp, entry), join(runDir, entry));
}
// Wine is the exception (test/helpers/wine.ts): its wineserver outlives the run.
process.env['CDB_HARNESS_SYSTEM_TMPDIR'] = systemTmp;
for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = runDir;

export const mochaHooks = {
  afterAll(): void {
    removeTempDirs();
    const left = readdirSync(runDir).filter((entry) => !TSX_CACHE_RE.test(entry));
    rmSync(runDir, { recursive: true, force: true });
    if (left.length > 0) {
      throw new Error(
        `the run left ${left.length} temporary file(s) or folder(s) behind (now removed); ` +
          `use makeTempDir() from test/helpers/temp-dir.ts or remove them: ${left.join(', ')}`,
      );
    }
  },
};
