// The orphan guard with real processes: a "harness" (a node child holding a PtyProcess, as a
// DebuggerSession does) is killed with SIGKILL, and what its pty child (a shell standing in for
// the debugger, recording the signals it gets) sees afterwards is checked. Without the guard the
// child dies of the terminal's hang-up; with it the child outlives the hang-up and gets the
// guard's Ctrl-C (SIGINT), which a real debugger answers by breaking in and detaching
// (test/watch/watch-harness-death.test.ts, test/dbgeng/harness-death.dbgeng.ts).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pidAlive } from '../../../src/platform/common/host.js';
import { GUARD_GRACE_SECONDS, startOrphanGuard } from '../../../src/platform/wine/orphan-guard.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { pollUntil, REPO_ROOT, sleep } from '../../helpers/wine.js';

const TSX = pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const PTY_PROCESS = pathToFileURL(join(REPO_ROOT, 'src', 'pty', 'pty-process.ts')).href;

/** A shell that writes its pid, then `hup` / `int` to `signals` as those signals arrive. */
function recorder(dir: string): string {
  const signals = join(dir, 'signals');
  return [
    `echo $$ > '${join(dir, 'pid')}'`,
    `trap "echo hup >> '${signals}'; exit 0" HUP`,
    `trap "echo int >> '${signals}'; exit 0" INT`,
    'echo ready',
    'while :; do sleep 0.1; done',
  ].join('; ');
}

/** Starts a node "harness" whose PtyProcess runs the recorder; resolves once the shell is up. */
async function startHarness(dir: string, guarded: boolean) {
  const code = [
    `import { PtyProcess } from ${JSON.stringify(PTY_PROCESS)};`,
    `const pty = PtyProcess.spawn({ file: 'sh', args: ['-c', ${JSON.stringify(recorder(dir))}], guardLiveTarget: ${guarded} });`,
    "pty.onData((text) => { if (text.includes('ready')) process.stdout.write('ready\\n'); });",
    'setInterval(() => undefined, 1000);',
  ].join('\n');
  const harness = spawn(process.execPath, ['--import', TSX, '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  harness.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((done) => harness.once('exit', () => done()));
  await pollUntil(() => (out.includes('ready') ? true : undefined), 15_000, 'the pty child');
  const childPid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
  return { harness, exited, childPid };
}

const signalsOf = (dir: string) =>
  existsSync(join(dir, 'signals')) ? readFileSync(join(dir, 'signals'), 'utf8').split('\n') : [];

describe('orphan guard (real processes, harness killed with SIGKILL)', function () {
  this.timeout(30_000);
  const leftover: number[] = [];
  afterEach(() => {
    for (const pid of leftover.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });

  it('without the guard the pty child dies of the hang-up (what killed the watched program)', async () => {
    const dir = makeTempDir('guard-off');
    const { harness, exited, childPid } = await startHarness(dir, false);
    leftover.push(childPid);
    harness.kill('SIGKILL');
    await exited;
    await pollUntil(() => (pidAlive(childPid) ? undefined : true), 10_000, 'the child to end');
    expect(signalsOf(dir)).to.include('hup');
    expect(signalsOf(dir)).to.not.include('int');
  });

  it('with the guard the pty child outlives the hang-up and is then sent Ctrl-C (SIGINT)', async () => {
    const dir = makeTempDir('guard-on');
    const { harness, exited, childPid } = await startHarness(dir, true);
    leftover.push(childPid);
    harness.kill('SIGKILL');
    await exited;
    // Alive through the grace the guard gives a debugger at its prompt to quit by itself.
    await sleep((GUARD_GRACE_SECONDS * 1000) / 2);
    expect(pidAlive(childPid), 'alive after the hang-up').to.equal(true);
    await pollUntil(() => (signalsOf(dir).includes('int') ? true : undefined), 10_000, 'SIGINT');
    expect(signalsOf(dir)).to.not.include('hup');
  });

  it('release() (the harness ends the session itself) ends the guard without any signal', async () => {
    const dir = makeTempDir('guard-release');
    const victim = spawn('sh', ['-c', recorder(dir)], { detached: true, stdio: 'ignore' });
    const victimPid = victim.pid ?? -1;
    leftover.push(victimPid);
    await pollUntil(() => (existsSync(join(dir, 'pid')) ? true : undefined), 5_000, 'the victim');
    const guard = startOrphanGuard(victimPid);
    await guard.release();
    expect(pidAlive(guard.pid), 'the guard is gone once released').to.equal(false);
    await sleep(GUARD_GRACE_SECONDS * 1000 + 500);
    expect(signalsOf(dir)).to.deep.equal([]);
    process.kill(-victimPid, 'SIGKILL');
    await new Promise<void>((done) =>
      victim.exitCode === null ? victim.once('exit', () => done()) : done(),
    );
  });
});
