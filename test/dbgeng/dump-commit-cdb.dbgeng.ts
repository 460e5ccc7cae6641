// `dump -m STEP,…` with --engine cdb through the real Debugger Engine (build/dbgeng, under Wine),
// which has no !address (the NuGet package carries no exts.dll). Before, the CLI refused with
// exit 5 ("cannot read the commit … !address -summary gave no MEM_COMMIT total"); now the commit
// is read from outside (native/commit-probe: VirtualQueryEx, the MEM_COMMIT total !address
// prints) and a dump is written at each step the program's own log says it committed.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DumpTriggerSummary } from '../../src/cli/commands/dump-triggers.js';
import { probeCommit } from '../../src/platform/index.js';
import { runCli } from '../helpers/cli.js';
import { cue } from '../helpers/cue-file.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, startTarget, wineEnv } from '../helpers/wine.js';
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

const MB = 1024 * 1024;

describe('dump -m with the real Debugger Engine, which has no !address (test:dbgeng)', function () {
  this.timeout(240_000);
  before(requireDbgengRig);
  afterEach(killAllTargets);

  it('reads the commit from outside and writes one dump at each step crossed', async () => {
    const go = cue();
    const target = await startTarget('commitsteps', ['16', '4000', '2', go.wine]);
    const base = await probeCommit(target.pid, { env: wineEnv() });
    if (!('bytes' in base)) throw new Error(`commit-probe: ${JSON.stringify(base)}`);
    // Thresholds in the middle of steps 1 and 2 (16 MB each).
    const steps = [8, 24].map((mb) => Math.round(base.bytes / 1024 + mb * 1024));
    const dir = makeTempDir('cdb-steps');
    const run = await runCli(
      [
        'dump',
        '-mm',
        '-m',
        steps.map((kb) => `${kb}KB`).join(','),
        '--poll',
        '300ms',
        '--json',
        String(target.pid),
        dir,
        '--engine',
        'cdb',
        '--debugger',
        DBGENG_CDB,
      ],
      {
        env: wineEnv(),
        timeoutMs: 200_000,
        onStderr: (text) => {
          if (/Commit of pid \d+: \d/.test(text)) go.pull();
        },
      },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as DumpTriggerSummary;
    const dumped = summary.events.filter((e) => e.action === 'dumped');
    expect(dumped.map((e) => e.threshold)).to.deep.equal(steps.map((kb) => kb * 1024));
    for (const event of dumped) {
      expect(event.value).to.be.at.least(event.threshold ?? Infinity);
      expect(event.value).to.be.below((event.threshold ?? 0) + 16 * MB + 4 * MB);
    }
    expect(summary.dumps).to.have.length(2);
    expect(run.stderr).to.match(
      /^note: read from outside by commit-probe \(VirtualQueryEx\): cdb has no !address \("No export address found"\)/m,
    );
    expect(readFileSync(join(dir, 'triggers.ndjson'), 'utf8').trim().split('\n')).to.have.length(4);
    expect(target.log()).to.match(/COMMIT step=2/);
  });
});
