// kill -9 of `cdb-harness watch` under winedbg: the watched program must live on, run, and be
// free to be attached again (issue 30, defect 11). Before the orphan guard
// (src/platform/wine/orphan-guard.ts) the terminal's hang-up ended winedbg and wineserver took
// the target down with it (DEBUG_KILL_ON_CLOSE).
import { expect } from 'chai';
import { expectWatchedAgain, killWatchMidway } from '../helpers/harness-death.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../helpers/wine.js';

(wineRigReady() ? describe : describe.skip)('watch killed with SIGKILL (winedbg)', function () {
  this.timeout(120_000);
  after(killAllTargets);

  it('leaves the target running and detached: it can be watched again', async () => {
    const target = await startTarget('idle', ['100']);
    // `C:\windows\system32\winedbg.exe 1412`: the winedbg this watch started for this pid.
    const debuggerRe = new RegExp(`winedbg\\.exe ${target.pid}\\b`);
    await killWatchMidway(target.pid, ['--engine', 'winedbg'], debuggerRe, { env: wineEnv() });
    expect(await target.isRunning(2000, /^tick/), 'the target runs on').to.equal(true);
    expect(target.exited()).to.equal(false);

    await expectWatchedAgain(target, { engine: 'winedbg', env: wineEnv() });
    await target.kill();
  });
});
