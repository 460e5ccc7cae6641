// The engine's framing, queueing, deadlines, caps and exit handling, proven against a tiny fake
// debugger (test/engine/fixtures/fake-debugger.js) on a real pty. Nothing here needs cdb text:
// the fake speaks the winedbg dialect's prompt and echo, the way Wine's conhost does.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AbortedError,
  DebuggerExitedError,
  OutputLimitError,
  TimeoutError,
  UnsafeArgumentError,
  UsageError,
} from '../../src/errors.js';
import { DebuggerSession, type SessionOptions } from '../../src/engine/debugger-session.js';
import { MARKER_SHAPE } from '../../src/engine/marker.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The marker's own output line (after a newline, or right after a prompt). */
const MARKER_LINE = new RegExp(`(?:\\n|>)${MARKER_SHAPE.source}\\r?\\n`);

const FAKE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fake-debugger.js');

const sessions: DebuggerSession[] = [];

async function startFake(
  flags: string[] = [],
  options: Partial<SessionOptions> = {},
): Promise<DebuggerSession> {
  const session = await DebuggerSession.start({
    dialect: 'winedbg',
    target: { kind: 'none' },
    debuggerCommandPrefix: { file: process.execPath, args: [FAKE, ...flags] },
    startTimeoutMs: 10_000,
    commandTimeoutMs: 5_000,
    ...options,
  });
  sessions.push(session);
  return session;
}

/** Resolves once the session's output so far includes `text` (a stop part way printed). */
function outputIncludes(session: DebuggerSession, text: string): Promise<void> {
  return new Promise<void>((seen) => {
    let soFar = '';
    const stopListening = session.onOutput((chunk) => {
      soFar += chunk;
      if (!soFar.includes(text)) return;
      stopListening();
      seen();
    });
  });
}

async function expectRejection<T extends Error>(
  promise: Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(type);
    return error as T;
  }
  throw new Error(`expected a ${type.name}`);
}

describe('DebuggerSession framing (fake debugger on a real pty)', function () {
  this.timeout(20_000);

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.kill()));
  });

  it('starts at the first prompt and keeps everything before it as the banner', async () => {
    const session = await startFake();
    expect(session.banner).to.equal('fake debugger starting');
    expect(session.state).to.equal('stopped');
    expect(session.initialStop.kind).to.equal('initial');
  });

  it('returns only the command output: no echo, no marker, no prompt', async () => {
    const session = await startFake();
    const result = await session.execute('echo hello world');
    expect(result.lines).to.deep.equal(['hello world']);
    expect(result.output).to.equal('hello world');
    expect(result.truncated).to.equal(false);
    const many = await session.execute('spew 3');
    expect(many.lines).to.deep.equal(['line 0', 'line 1', 'line 2']);
  });

  it('runs queued commands one at a time, in order, each with its own output', async () => {
    const session = await startFake();
    const results = await Promise.all(
      ['slow 80 A', 'echo B', 'slow 30 C', 'echo D', 'spew 2'].map((c) => session.execute(c)),
    );
    expect(results.map((r) => r.output)).to.deep.equal(['A', 'B', 'C', 'D', 'line 0\nline 1']);
  });

  it('is not fooled by the echo of the marker command arriving before the output', async () => {
    // --early-echo echoes input as soon as it is written (like a kernel tty): the echo of
    // `echo _qzk1_` arrives 300 ms before the command's own output.
    const session = await startFake(['--early-echo']);
    const result = await session.execute('slow 300 the real output');
    expect(result.lines).to.deep.equal(['the real output']);
  });

  it('hands the output over once the prompt and the marker echo show the command finished', async () => {
    // One round trip per command: the marker's own answer (held back 300 ms here) is not waited
    // for; the prompt followed by the echo of the marker command already proves the end.
    const session = await startFake(['--slow-markers']);
    let seen = '';
    session.onOutput((text) => (seen += text));
    const first = await session.execute('echo first');
    expect(first.lines).to.deep.equal(['first']);
    expect(seen).to.not.match(MARKER_LINE);
    // The next command is written only after that marker arrived: the framing stays exact.
    const second = await session.execute('spew 2');
    expect(second.lines).to.deep.equal(['line 0', 'line 1']);
    expect(seen).to.match(MARKER_LINE);
  });

  it('waits for the marker itself when echoes come on write, before the output', async () => {
    // A kernel tty echoes both lines at once, so only the marker's own line ends the command.
    const session = await startFake(['--early-echo', '--slow-markers']);
    let seen = '';
    session.onOutput((text) => (seen += text));
    const result = await session.execute('echo tty');
    expect(result.lines).to.deep.equal(['tty']);
    expect(seen).to.match(MARKER_LINE);
  });

  it('refuses empty and multi-line commands before anything is written', async () => {
    const session = await startFake();
    expect(() => session.execute('')).to.throw(UnsafeArgumentError);
    expect(() => session.execute('echo a\recho b')).to.throw(UnsafeArgumentError);
    expect(() => session.execute('echo a; echo b')).to.throw(UnsafeArgumentError);
    expect((await session.execute('echo still fine')).output).to.equal('still fine');
  });

  it('a hung command fails with TimeoutError naming the command and the last output lines', async () => {
    const session = await startFake();
    await session.execute('echo before the hang');
    const error = await expectRejection(session.execute('hang', { timeoutMs: 300 }), TimeoutError);
    expect(error.timeoutMs).to.equal(300);
    expect(error.command).to.equal('hang');
    expect(error.lastOutput.join('\n')).to.include('before the hang');
    // The harness's own framing (marker commands and markers) is not shown to the user.
    expect(error.lastOutput.join('\n')).to.not.match(MARKER_SHAPE);
    expect(error.message).to.include('Command: hang');
  });

  it('late output of a timed-out command is never charged to the next command', async () => {
    const session = await startFake();
    await expectRejection(session.execute('slow 400 LATE', { timeoutMs: 100 }), TimeoutError);
    const next = await session.execute('echo NEXT');
    expect(next.lines).to.deep.equal(['NEXT']);
  });

  it('an aborted command rejects with AbortedError and the session stays usable', async () => {
    const session = await startFake();
    const controller = new AbortController();
    const pending = session.execute('slow 300 X', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expectRejection(pending, AbortedError);
    expect((await session.execute('echo after')).output).to.equal('after');
  });

  it('the debugger dying mid-command gives DebuggerExitedError with its exit code', async () => {
    const session = await startFake();
    const error = await expectRejection(session.execute('die 9'), DebuggerExitedError);
    expect(error.exitCode).to.equal(9);
    expect(error.command).to.equal('die 9');
    expect(error.lastOutput.join('\n')).to.include('half a line');
    expect(session.state).to.equal('exited');
    await expectRejection(session.execute('echo x'), DebuggerExitedError);
  });

  it('keeps the head of a long output within the caps and says it was truncated', async () => {
    const session = await startFake();
    const result = await session.execute('spew 5000', { maxLines: 100 });
    expect(result.truncated).to.equal(true);
    expect(result.lines).to.have.length(100);
    expect(result.lines[0]).to.equal('line 0');
    expect(result.lines[99]).to.equal('line 99');
    expect(result.droppedLines).to.be.greaterThan(4800);
    const bytes = await session.execute('spew 1000', { maxBytes: 200 });
    expect(bytes.output.length).to.be.at.most(200);
    expect(bytes.truncated).to.equal(true);
  });

  it('stops an endless command at the hard cap with OutputLimitError, then recovers', async () => {
    const session = await startFake();
    const error = await expectRejection(
      session.execute('flood', { maxBytes: 10_000, hardMaxBytes: 200_000 }),
      OutputLimitError,
    );
    expect(error.command).to.equal('flood');
    // Ctrl-C stopped the flood; the queued marker brought the stream back in step.
    const next = await session.execute('echo recovered');
    expect(next.lines).to.deep.equal(['recovered']);
  });

  it('after a go the target runs until interrupt(), which returns a break-in stop', async () => {
    const session = await startFake();
    await session.go();
    expect(session.state).to.equal('running');
    await expectRejection(session.execute('echo no'), UsageError);
    const stop = await session.interrupt({ timeoutMs: 5000 });
    expect(stop.kind).to.equal('break-in');
    expect(stop.text).to.equal('Ctrl-C: stopping debuggee');
    expect(session.state).to.equal('stopped');
    expect(session.lastStop).to.equal(stop);
    expect((await session.execute('echo back')).output).to.equal('back');
  });

  it('interrupt() lets a stop that is already being printed finish instead of sending Ctrl-C', async () => {
    // winedbg exits when Ctrl-C arrives while it prints a stop, and an attached target dies
    // with it; the fake does the same.
    const session = await startFake(['--stop-soon']);
    // Interrupt once the stop's first line is out: the rest is still being printed.
    const printing = outputIncludes(session, 'First chance exception');
    await session.go({ command: 'pass' });
    await printing;
    const stop = await session.interrupt({ timeoutMs: 5000 });
    expect(stop.kind).to.equal('exception');
    expect(stop.code).to.equal('0xe0434f4d');
    expect(session.state).to.equal('stopped');
    expect((await session.execute('echo still here')).output).to.equal('still here');
  });

  it('interrupt() waits through a quiet spell in the middle of a stop (a Ctrl-C would end winedbg)', async () => {
    // The stop goes quiet for 800 ms after its third line, longer than the quiet spell that ends
    // the wait for mere noise; the winedbg dialect knows a Ctrl-C mid-stop ends the debugger.
    const session = await startFake(['--stop-soon', '--stall-stop']);
    const printing = outputIncludes(session, 'Register dump:');
    await session.go({ command: 'pass' });
    await printing;
    const stop = await session.interrupt({ timeoutMs: 5000 });
    expect(stop.kind).to.equal('exception');
    expect(session.state).to.equal('stopped');
    expect((await session.execute('echo still here')).output).to.equal('still here');
  });

  it('waitForStop honours its deadline while the target keeps running', async () => {
    const session = await startFake();
    await session.go();
    await expectRejection(session.waitForStop({ timeoutMs: 150 }), TimeoutError);
    expect(session.state).to.equal('running');
    expect((await session.interrupt()).kind).to.equal('break-in');
  });

  it('close() interrupts a running target, sends the end commands and reports no force', async () => {
    const session = await startFake();
    await session.go();
    const end = await session.close({ timeoutMs: 5000 });
    expect(end.forced).to.equal(false);
    expect(end.exitCode).to.equal(0);
    expect(end.output).to.include('quit');
    expect(session.state).to.equal('exited');
  });

  it('close() of a hung debugger kills it only as the last resort and says forced', async () => {
    const session = await startFake();
    await expectRejection(session.execute('hang', { timeoutMs: 100 }), TimeoutError);
    const end = await session.close({ timeoutMs: 1500 });
    expect(end.forced).to.equal(true);
    expect(session.state).to.equal('exited');
  });

  it('a session AbortSignal rejects waiting calls with AbortedError and ends the session', async () => {
    const controller = new AbortController();
    const session = await startFake([], { signal: controller.signal });
    await session.go();
    const waiting = session.waitForStop();
    controller.abort();
    await expectRejection(waiting, AbortedError);
    const end = await session.close();
    expect(end.forced).to.equal(false);
    await expectRejection(session.execute('echo x'), AbortedError);
  });

  it('records every raw chunk in and out as JSON lines', async () => {
    const dir = makeTempDir('rec');
    const recordPath = join(dir, 'session.jsonl');
    const session = await startFake([], { recordPath });
    await session.execute('echo recorded');
    await session.close();
    const entries = readFileSync(recordPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { t: number; dir: string; data: string });
    expect(entries.map((e) => e.dir)).to.include.members(['in', 'out', 'exit']);
    expect(entries.some((e) => e.dir === 'in' && e.data.startsWith('echo recorded\r'))).to.equal(
      true,
    );
    expect(entries.some((e) => e.dir === 'out' && e.data.includes('\x1b[?25l'))).to.equal(true);
    expect(entries.every((e, i) => i === 0 || e.t >= (entries[i - 1]?.t ?? 0))).to.equal(true);
  });
});
