// kill -9 of `cdb-harness watch` over the real Debugger Engine (build/dbgeng/cdb, the console
// host around Microsoft's dbgeng.dll under Wine): the watched program must live on, run, and be
// free to be attached again (issue 30, defect 11). Before, the terminal's hang-up ended the host
// and wineserver took the target down with it although the host ran with -pd: the option set
// before the attach never reached the target's debug port (test/targets/dbgeng-host).
import { expect } from 'chai';
import { expectWatchedAgain, killWatchMidway } from '../helpers/harness-death.js';
import { killAllTargets, startTarget, wineEnv } from '../helpers/wine.js';
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

describe('watch killed with SIGKILL (the real Debugger Engine)', function () {
  this.timeout(150_000);
  before(requireDbgengRig);
  after(killAllTargets);

  it('leaves the target running and detached: it can be watched again', async () => {
    const target = await startTarget('idle', ['100']);
    // `/…/build/dbgeng/dbgeng-host.exe -snul -p 1412 -pd`: the host this watch started.
    const hostRe = new RegExp(`dbgeng-host\\.exe .*-p ${target.pid}\\b`);
    await killWatchMidway(target.pid, ['--engine', 'cdb', '--debugger', DBGENG_CDB], hostRe, {
      env: wineEnv(),
    });
    expect(await target.isRunning(2000, /^tick/), 'the target runs on').to.equal(true);
    expect(target.exited()).to.equal(false);

    await expectWatchedAgain(target, {
      engine: 'cdb',
      list: () => Promise.resolve([{ pid: target.pid, name: 'idle.exe' }]),
      debuggerPath: DBGENG_CDB,
      env: wineEnv(),
    });
    await target.kill();
  });
});
