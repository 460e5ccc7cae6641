// The cdb dialect on a host without tasklist (cdb.exe or the real Debugger Engine under Wine):
// the processes it lists are the Wine prefix's, read through Wine itself, with decimal pids and
// image names as tasklist gives them.
import { expect } from 'chai';
import { listCdbHostProcesses } from '../../../../src/engine/dialects/cdb/process-list.js';
import { isHarnessError } from '../../../../src/errors.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../../../helpers/wine.js';

(wineRigReady() ? describe : describe.skip)('cdb process list on a Wine host', function () {
  this.timeout(60_000);
  after(killAllTargets);

  it('lists a running test program by its Windows pid and image name (no tasklist on PATH)', async () => {
    const target = await startTarget('idle', ['100']);
    const rows = await listCdbHostProcesses({ env: wineEnv() }, 'linux');
    expect(rows.filter((r) => r.pid === target.pid).map((r) => r.name)).to.deep.equal(['idle.exe']);
    // The lister's own helper process is not offered as a candidate.
    expect(rows.some((r) => r.name === 'winedbg.exe')).to.equal(false);
  });

  it('says Wine is missing, with the install hint (exit 3), when it is', async () => {
    try {
      await listCdbHostProcesses({ env: { ...wineEnv(), PATH: '/nonexistent' } }, 'linux');
      expect.fail('listing without Wine succeeded');
    } catch (error) {
      expect(isHarnessError(error) && error.code).to.equal('DEBUGGER_NOT_FOUND');
      expect((error as Error).message).to.match(
        /winedbg was not found on PATH.*apt-get install wine/,
      );
    }
  });
});
