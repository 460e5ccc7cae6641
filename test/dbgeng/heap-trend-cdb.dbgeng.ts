// heap-trend --engine cdb through the real Debugger Engine (build/dbgeng, under Wine), which has
// no extension for !heap or !address (the NuGet package carries no ext.dll/exts.dll). Before, the
// run reported "0 KB → 0 KB, no leak suspected", status completed, exit 0, on a program that
// leaks; the debugger's reason was only in samples.ndjson. Now it stops at the first sample with
// the debugger's own line and exit 3.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, startTarget, wineEnv } from '../helpers/wine.js';
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

describe('heap-trend --engine cdb without !heap (test:dbgeng)', function () {
  this.timeout(180_000);
  before(requireDbgengRig);
  afterEach(killAllTargets);

  for (const extra of [[], ['--clr']]) {
    it(`stops at the first sample with the debugger's line, exit 3 ${extra.join(' ')}`, async () => {
      const target = await startTarget('leak', []);
      const out = join(makeTempDir('ht-cdb'), 'out');
      const run = await runCli(
        [
          'heap-trend',
          String(target.pid),
          '--engine',
          'cdb',
          '--debugger',
          DBGENG_CDB,
          '--interval',
          '1s',
          '--samples',
          '3',
          '--out',
          out,
          ...extra,
        ],
        { env: wineEnv(), timeoutMs: 150_000 },
      );
      expect(run.code, run.stderr).to.equal(3);
      expect(run.stderr).to.match(/cannot run !heap -s -h 0 here; it said "No export heap found"/);
      expect(run.stderr).to.not.match(/^sample 1:/m);
      expect(run.stdout).to.not.match(/No leak suspected|native series are reported/);
      expect(existsSync(join(out, 'report.json')), 'no report claims a result').to.equal(false);
      const samples = join(out, 'samples.ndjson');
      if (existsSync(samples)) expect(readFileSync(samples, 'utf8').trim()).to.equal('');
      expect(await target.isRunning(2_000, /^HEAPSTAT/), 'the program runs on').to.equal(true);
    });
  }
});
