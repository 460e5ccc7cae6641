// interrupt() of a live target with the library running as a Windows process (Windows node under
// Wine, the engine host on ConPTY). The console's Ctrl-C cannot break in here: Wine's conhost
// takes byte 0x03 as end of input and closes the pseudo console, so the debugger is gone (and the
// break with it). On Windows the library breaks in by DebugBreakProcess on the target
// (native/break-in, src/platform/common/break-in.ts): the stop is a break-in, the session detaches,
// and the program runs on.
import { expect } from 'chai';
import { join } from 'node:path';
import { killAllTargets, REPO_ROOT, startTarget } from '../helpers/wine.js';
import { ENGINE_HOST, requireWindowsTier, runWindowsNode, winPath } from './windows-rig.js';

const script = winPath(join(REPO_ROOT, 'test', 'windows', 'scripts', 'break-in.js'));

describe('break-in as a Windows process (test:windows)', function () {
  this.timeout(120_000);
  before(requireWindowsTier);
  afterEach(killAllTargets);

  it('interrupt() breaks in by DebugBreakProcess, detaches, and the program runs on', async () => {
    const target = await startTarget('idle', ['100']);
    const run = await runWindowsNode([script, winPath(ENGINE_HOST), String(target.pid)], {
      timeoutMs: 90_000,
    });
    expect(run.timedOut, `still running at 90 s; stderr:\n${run.stderr}`).to.equal(false);
    expect(run.stdout, run.stderr).to.match(/^STOP break-in DebugBreakProcess ""\r?$/m);
    expect(run.stdout).to.match(/^END detached=true\r?$/m);
    expect(await target.isRunning(3_000, /^tick/), 'the program ticks after the detach').to.equal(
      true,
    );
  });
});
