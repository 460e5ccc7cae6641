// The Windows halves of src/pty and src/platform/windows run by Windows node under Wine: a
// finished ConPTY child releases the event loop, and killTree really ends its process.
import { expect } from 'chai';
import { join } from 'node:path';
import { killAllTargets, REPO_ROOT, startTarget, targetPath } from '../helpers/wine.js';
import { ENGINE_HOST, runWindowsNode, requireWindowsTier, winPath } from './windows-rig.js';

const script = (name: string) => join(REPO_ROOT, 'test', 'windows', 'scripts', name);

describe('pty and kill-tree as a Windows process (test:windows)', function () {
  this.timeout(90_000);
  before(requireWindowsTier);
  after(killAllTargets);

  it('node ends by itself once a ConPTY child has exited (node-pty #887: worker and sockets)', async () => {
    const run = await runWindowsNode(
      [winPath(script('pty-exit.js')), winPath(targetPath('idle')), '50', '3'],
      { timeoutMs: 45_000 },
    );
    expect(run.stdout, run.stderr).to.match(/^EXITED 0$/m);
    expect(run.timedOut, 'node was still running 45 s after its pty child exited').to.equal(false);
    expect(run.code).to.equal(0);
  });

  it("a dump session's exit comes on the end of conhost's output, after its last line, not after node-pty's 1 s quiet timer", async () => {
    const dump = winPath(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'));
    const run = await runWindowsNode(
      [winPath(script('pty-console-end.js')), winPath(ENGINE_HOST), dump],
      {
        timeoutMs: 45_000,
      },
    );
    expect(run.stdout, run.stderr).to.match(
      /^EXIT 0 last-line-before-exit=true output-ended=true$/m,
    );
    expect(run.timedOut).to.equal(false);
  });

  it('a session that launched its program keeps its pseudo console at the exit (the program is on it)', async () => {
    const dump = winPath(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'));
    const run = await runWindowsNode(
      [winPath(script('pty-console-end.js')), winPath(ENGINE_HOST), dump, 'keep'],
      { timeoutMs: 45_000 },
    );
    expect(run.stdout, run.stderr).to.match(
      /^EXIT 0 last-line-before-exit=true output-ended=false$/m,
    );
  });

  it('killTree ends the process, or says it could not (Wine 8 taskkill rejects /T)', async () => {
    const target = await startTarget('idle', ['100']);
    const run = await runWindowsNode([winPath(script('kill-tree.js')), String(target.pid)], {
      timeoutMs: 45_000,
    });
    expect(run.stdout, run.stderr).to.match(/^KILLED$/m);
    expect(await target.waitForExit(10_000), 'the target still runs').to.equal(true);
  });
});
