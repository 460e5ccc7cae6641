// End to end against a real debugger: winedbg under Wine, attached to Windows test programs
// built by mingw. Proves attach, commands, cont/pass, Ctrl-C break-in, typed first-chance
// exception stops, minidump writing and — above all — that ending the session, aborting it or
// failing inside it leaves the target running.
import { expect } from 'chai';
import { openSync, readSync, closeSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { AbortedError, TimeoutError } from '../../src/errors.js';
import { DebuggerSession } from '../../src/engine/debugger-session.js';
import {
  killAllTargets,
  startTarget,
  targetPath,
  wineEnv,
  wineRigReady,
  type RunningTarget,
} from '../helpers/wine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function attach(target: RunningTarget, extra: { signal?: AbortSignal; recordPath?: string } = {}) {
  return DebuggerSession.start({
    dialect: 'winedbg',
    target: { kind: 'attach', pid: target.pid },
    env: wineEnv(),
    startTimeoutMs: 30_000,
    commandTimeoutMs: 15_000,
    ...extra,
  });
}

function firstBytes(path: string, n: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(n);
    readSync(fd, buffer, 0, n, 0);
    return buffer.toString('latin1');
  } finally {
    closeSync(fd);
  }
}

describe('winedbg end to end (real debugger under Wine)', function () {
  this.timeout(60_000);
  const sessions: DebuggerSession[] = [];

  before(function () {
    if (!wineRigReady()) this.skip();
  });

  afterEach(async () => {
    // Safe end for anything a failed test left open, then the targets.
    await Promise.all(sessions.splice(0).map((s) => s.close().catch(() => undefined)));
    await killAllTargets();
  });

  it('attaches, runs commands, continues, breaks in, dumps and detaches; the target lives on', async () => {
    const target = await startTarget('idle', ['100', '0']);
    const session = await attach(target);
    sessions.push(session);
    expect(session.initialStop.kind).to.equal('initial');
    expect(session.banner).to.match(/^WineDbg starting on pid [0-9a-f]+/m);
    // Stopped at the prompt, the target is frozen.
    expect(await target.isRunning(600, /^tick/)).to.equal(false);

    const share = await session.execute('info share');
    expect(share.lines.some((l) => /\bidle$/.test(l))).to.equal(true);
    expect(share.lines.some((l) => l.startsWith('Module'))).to.equal(true);
    const bt = await session.execute('bt');
    expect(bt.lines[0]).to.equal('Backtrace:');

    await session.go();
    expect(session.state).to.equal('running');
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);

    const stop = await session.interrupt({ timeoutMs: 5000 });
    expect(stop.kind).to.equal('break-in');
    expect(stop.text).to.include('Ctrl-C: stopping debuggee');
    expect(session.state).to.equal('stopped');

    const dir = makeTempDir('e2e');
    const dumpPath = join(dir, 'idle.dmp');
    const dump = await session.writeDump(dumpPath, 'mini');
    expect(dump.command).to.equal(`minidump "${dumpPath}"`);
    expect(existsSync(dumpPath)).to.equal(true);
    expect(firstBytes(dumpPath, 4)).to.equal('MDMP');
    expect(statSync(dumpPath).mode & 0o777).to.equal(0o600);

    const end = await session.close();
    expect(end).to.deep.include({ detached: true, forced: false });
    expect(session.state).to.equal('exited');
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);
  });

  it('a command winedbg rejects does not eat the marker sent in the same write', async () => {
    // Command and end marker go out in one write; winedbg's parser error must leave the marker
    // line to be read next, so the error text comes back as the command's output and the
    // session stays framed.
    const target = await startTarget('idle', ['100', '0']);
    const session = await attach(target);
    sessions.push(session);
    const bad = await session.execute('print (1');
    expect(bad.lines.join('\n')).to.match(/Syntax error/i);
    const unknown = await session.execute('nosuchcommand');
    expect(unknown.lines.join('\n')).to.match(/Syntax error/i);
    expect((await session.execute('echo still framed')).lines).to.deep.equal(['still framed']);
    expect((await session.close()).detached).to.equal(true);
  });

  it('reads first-chance exceptions as typed stops and passes them on to the program', async () => {
    const target = await startTarget('raise', [
      '-w',
      '1500',
      '-i',
      '100',
      '-n',
      '0',
      'e0434f4d',
      '20474343',
    ]);
    const session = await attach(target);
    sessions.push(session);
    // The program pauses 1.5 s before its first raise, but an attach on a loaded machine can
    // take longer (1.3–4.7 s measured with the CPU busy). A raise then beats the attach's own
    // break: winedbg reports that exception as the attach stop, and its break comes later as a
    // bare location line (`0x000001700555f5 ntdll+0x555f5: ret`, kind unknown). Both orders
    // are the real debugger's; the first-chance stops must be typed in either.
    const { initialStop } = session;
    let attachBreakOwed = initialStop.event !== undefined;
    const seen: { code: string | undefined; chance: string | undefined }[] = [];
    if (attachBreakOwed) seen.push({ code: initialStop.code, chance: initialStop.chance });
    await session.go(); // from the attach stop: cont (pass when it was an exception)
    while (seen.length < 4) {
      const stop = await session.waitForStop({ timeoutMs: 15_000 });
      if (attachBreakOwed && stop.kind === 'unknown' && stop.event === undefined) {
        attachBreakOwed = false;
        await session.go();
        continue;
      }
      expect(stop.kind).to.equal('exception');
      expect(stop.event?.description).to.be.a('string');
      seen.push({ code: stop.code, chance: stop.chance });
      await session.go(); // at an exception: pass
    }
    expect(seen.every((s) => s.chance === 'first')).to.equal(true);
    expect(seen.map((s) => s.code)).to.include.members(['0xe0434f4d', '0x20474343']);
    // `pass` handed each exception to the program's vectored handler.
    await target.waitForLine(/^handled 2 /, 10_000);
    const end = await session.close();
    expect(end).to.deep.include({ detached: true, forced: false });
    // A new line within 10 s (at once when all is well; the window is for a loaded machine).
    expect(await target.isRunning(10_000, /^handled/)).to.equal(true);
  });

  it('stops at first chances even after an earlier session left $BreakOnFirstChance=0 in the registry', async () => {
    const target = await startTarget('raise', ['-w', '1500', '-i', '100', '-n', '0', 'e0434f4d']);
    // winedbg stores the variable in the prefix's registry: this session's 0 outlives it.
    const earlier = await attach(target);
    sessions.push(earlier);
    await earlier.execute('set $BreakOnFirstChance=0');
    await earlier.close();
    const session = await attach(target);
    sessions.push(session);
    expect((await session.execute('print $BreakOnFirstChance')).output.trim()).to.equal('0x1');
    await session.go();
    const stop = await session.waitForStop({ timeoutMs: 15_000 });
    expect(stop).to.deep.include({ kind: 'exception', chance: 'first', code: '0xe0434f4d' });
    await session.go();
    expect((await session.close()).detached).to.equal(true);
  });

  it('an AbortSignal fired mid-session ends it by detaching: the target keeps running', async () => {
    const target = await startTarget('idle', ['100', '0']);
    const controller = new AbortController();
    const session = await attach(target, { signal: controller.signal });
    sessions.push(session);
    await session.go();
    const waiting = session.waitForStop();
    setTimeout(() => controller.abort(), 200);
    try {
      await waiting;
      expect.fail('waitForStop should reject');
    } catch (error) {
      expect(error).to.be.instanceOf(AbortedError);
    }
    const end = await session.close();
    expect(end).to.deep.include({ detached: true, forced: false });
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);
  });

  it('a command timeout followed by close still detaches: the target keeps running', async () => {
    const target = await startTarget('idle', ['100', '0']);
    const session = await attach(target);
    sessions.push(session);
    const dir = makeTempDir('e2e');
    try {
      // Writing a minidump takes hundreds of milliseconds under Wine; 1 ms cannot be enough.
      await session.execute(`minidump "${join(dir, 'slow.dmp')}"`, { timeoutMs: 1 });
      expect.fail('should time out');
    } catch (error) {
      expect(error).to.be.instanceOf(TimeoutError);
      expect((error as TimeoutError).command).to.match(/^minidump /);
    }
    const end = await session.close();
    expect(end).to.deep.include({ detached: true, forced: false });
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);
  });

  it('launches a program under winedbg (launch mode) and sees it exit as a typed stop', async () => {
    // Not Ctrl-C here: a launched debuggee shares winedbg's console, and in 2 of 5 measured runs
    // the Ctrl-C terminated it (`Ctrl-C: stopping debuggee` / `Process of pid=02e0 has
    // terminated`). Attach mode (above) is how the harness breaks in safely.
    const session = await DebuggerSession.start({
      dialect: 'winedbg',
      target: { kind: 'launch', program: targetPath('idle'), args: ['50', '4'] },
      env: wineEnv(),
      startTimeoutMs: 30_000,
    });
    sessions.push(session);
    expect(session.initialStop.kind).to.equal('initial');
    const share = await session.execute('info share');
    expect(share.lines.some((l) => /\bidle$/.test(l))).to.equal(true);
    await session.go();
    const stop = await session.waitForStop({ timeoutMs: 15_000 });
    expect(stop.kind, stop.text).to.equal('exit');
    expect(stop.processExited).to.equal(true);
    expect(session.state).to.equal('stopped');
    const end = await session.close();
    expect(end.forced).to.equal(false);
    expect(end.exitCode).to.equal(0);
  });

  it('refuses an attach to a pid that does not exist with a typed error', async () => {
    try {
      const session = await DebuggerSession.start({
        dialect: 'winedbg',
        target: { kind: 'attach', pid: 99999 },
        env: wineEnv(),
        startTimeoutMs: 30_000,
      });
      sessions.push(session);
      expect.fail('should not attach');
    } catch (error) {
      expect((error as { code?: string }).code).to.equal('TARGET');
    }
  });
});
