// DebuggerSession driving the cdb emulator over a real pty: framing, run control, dumps, safe
// ending and every fault the emulator can produce, the way the engine will meet them on Windows.
import { expect } from 'chai';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DebuggerSession, type SessionOptions } from '../../src/engine/debugger-session.js';
import type { SessionTarget } from '../../src/engine/dialects/dialect.js';
import {
  DebuggerExitedError,
  OutputLimitError,
  TargetError,
  TimeoutError,
} from '../../src/errors.js';
import { removeSymbolNoise } from '../../src/parsers/text.js';
import { EMULATOR, readState, SCENARIOS, Scratch } from '../emulator/emulator-pty.js';
import type { Scenario } from '../emulator/scenario.js';
import { resolveText } from '../emulator/transcripts.js';

const DUMP: SessionTarget = { kind: 'dump', path: 'C:\\dumps\\app.dmp' };
const LIVE: SessionTarget = { kind: 'attach', pid: 4242 };

describe('DebuggerSession over the cdb emulator', function () {
  this.timeout(30000);
  let scratch: Scratch;
  let session: DebuggerSession | undefined;

  beforeEach(() => {
    scratch = new Scratch();
  });

  afterEach(async () => {
    await session?.kill().catch(() => undefined);
    session = undefined;
    scratch.cleanup();
  });

  /** Start a session on a scenario (a file name in scenarios/ or an inline scenario). */
  async function start(
    scenario: string | Scenario,
    target: SessionTarget,
    options: Partial<SessionOptions> = {},
  ): Promise<{ session: DebuggerSession; stateFile: string }> {
    const scenarioFile =
      typeof scenario === 'string'
        ? join(SCENARIOS, `${scenario}.json`)
        : scratch.scenario(scenario);
    const stateFile = scratch.file('state.json');
    session = await DebuggerSession.start({
      dialect: 'cdb',
      target,
      debuggerCommandPrefix: {
        file: process.execPath,
        args: ['--import', 'tsx', EMULATOR, '--scenario', scenarioFile, '--state', stateFile],
      },
      startTimeoutMs: 15000,
      commandTimeoutMs: 10000,
      ...options,
    });
    return { session, stateFile };
  }

  describe('framing', () => {
    it('returns a reply exactly as the transcript body, without echoes, marker or prompt', async () => {
      const { session } = await start('dump-triage-av', DUMP);
      expect(session.banner).to.include('Loading Dump File [C:\\dumps\\app.dmp]');
      const analyze = await session.execute('!analyze -v');
      const body = resolveText({
        transcript: 'startup/fuzzmanager-full-session-win10-x64-av.txt',
        from: '0:000> !analyze -v',
      });
      expect(analyze.lines).to.deep.equal(body);
      expect(analyze.truncated).to.equal(false);
      const k = await session.execute('k');
      expect(k.lines).to.deep.equal(
        resolveText({ transcript: 'misc/k-x64-notepad-with-header.txt', from: '0:000> k' }),
      );
    });

    it('keeps the marker when a ; chain errs: the marker travels on its own line', async () => {
      const { session } = await start('dump-triage-av', DUMP);
      const result = await session.execute('bogus; .echo NOT_REACHED');
      expect(result.lines).to.deep.equal(["Couldn't resolve error at 'bogus'"]);
      expect((await session.execute('.exr -1')).lines[1]).to.equal(
        '   ExceptionCode: c0000005 (Access violation)',
      );
    });

    it('returns the .loadby failure text and stays framed', async () => {
      const { session } = await start('loadby-sos-before-clr', LIVE);
      expect((await session.execute('.loadby sos clr')).lines).to.deep.equal([
        "Unable to find module 'clr'",
      ]);
      expect((await session.execute('.loadby sos coreclr')).lines).to.deep.equal([]);
    });

    // Regression: a read that ends between the prompt's `>` and its blank (out "0:000>", then
    // out " kc") once made the echo ` kc` count as output; the echo is now compared trimmed.
    it('frames output split at random byte boundaries', async () => {
      const { session } = await start('split-slow-noise', DUMP);
      const result = await session.execute('kc');
      expect(result.lines).to.deep.equal(
        resolveText({ transcript: 'misc/kc-x64-call-site-only.txt' }),
      );
    });

    it('frames slow output (pauses between pieces)', async () => {
      const { session } = await start('split-slow-noise', DUMP);
      const result = await session.execute('.exr -1');
      expect(result.lines).to.deep.equal(
        resolveText({ transcript: 'misc/exr-minus1-initial-breakpoint-x64-then-kv.txt' }),
      );
    });

    it('hands over a line cut by symbol noise as printed; the parser helper rejoins it', async () => {
      // The noise rule of split-slow-noise.json without its byte splitting (tested above).
      const { session } = await start(
        {
          replies: [
            {
              command: 'k',
              reply: [{ transcript: 'misc/k-x64-notepad-with-header.txt', from: '0:000> k' }],
              noise: {
                line: 2,
                column: 21,
                text: {
                  transcript: 'misc/ecxr-x86-fuzzmanager-win7.txt',
                  from: 'Defaulted to export symbols for ntdll.dll',
                },
              },
            },
          ],
        },
        DUMP,
      );
      const result = await session.execute('k');
      expect(result.lines[1]).to.equal(
        '00 000000c8`2647bd08 *** ERROR: Symbol file could not be found.  Defaulted to export symbols for ntdll.dll -',
      );
      const clean = removeSymbolNoise(result.lines);
      expect(clean.lines).to.deep.equal(
        resolveText({ transcript: 'misc/k-x64-notepad-with-header.txt', from: '0:000> k' }),
      );
    });

    it('strips ConPTY VT sequences and knows the WoW64 prompt', async () => {
      const { session } = await start('conpty-vt-x86-prompt', DUMP);
      expect((await session.execute('kc')).lines).to.deep.equal(
        resolveText({ transcript: 'misc/kc-x64-call-site-only.txt' }),
      );
    });

    it('copes with a tty that echoes on write and ends lines CR CR LF', async () => {
      const { session } = await start({ console: { echo: 'tty' }, replies: [] }, DUMP);
      expect((await session.execute('.echo hello')).lines).to.deep.equal(['hello']);
    });
  });

  describe('run control', () => {
    it('types a second-chance CLR stop after go + waitForStop (first chances pass by default)', async () => {
      const { session } = await start('live-clr-first-chance', LIVE);
      await session.go({ command: 'g' });
      const stop = await session.waitForStop({ timeoutMs: 10000 });
      expect(stop).to.include({ kind: 'exception', chance: 'second', code: '0xe0434352' });
      expect(stop.event?.clrExceptionType).to.equal('System.AggregateException');
    });

    it('types first-chance stops after sxe clr, with the CLR type when the banner has one', async () => {
      const { session } = await start('live-clr-first-chance', LIVE);
      await session.execute('sxe clr');
      await session.go({ command: 'g' });
      const first = await session.waitForStop({ timeoutMs: 10000 });
      expect(first).to.include({ kind: 'exception', chance: 'first', code: '0xe0434352' });
      expect(first.event?.clrExceptionType).to.equal(undefined);
      await session.go();
      const second = await session.waitForStop({ timeoutMs: 10000 });
      expect(second).to.include({ chance: 'first', code: '0xe0434352' });
      expect(second.event?.clrExceptionType).to.equal('System.FormatException');
      expect((await session.execute('!pe')).lines[1]).to.equal(
        'Exception type:   System.Exception',
      );
    });

    it('reports the process exit stop (sxe epr) after the last event', async () => {
      const { session } = await start('live-clr-first-chance', LIVE);
      await session.execute('sxi clr');
      await session.go({ command: 'g' });
      const stop = await session.waitForStop({ timeoutMs: 10000 });
      expect(stop).to.include({ kind: 'exit', processExited: true });
    });

    it('breaks in with interrupt() and goes on reading commands at the new prompt', async () => {
      const { session, stateFile } = await start('live-break-in', LIVE);
      await session.go({ command: 'g' });
      const stop = await session.interrupt({ timeoutMs: 5000 });
      expect(stop).to.include({ kind: 'break-in', code: '0x80000003' });
      expect((await session.execute('k')).lines[0]).to.equal(' # Call Site');
      expect(readState(stateFile).interrupts).to.be.greaterThanOrEqual(1);
    });
    // Regression: on a tty that echoes on write (ICANON+ISIG) the kernel's echo of `g` is no proof
    // the debugger read it, and a SIGINT flushes the unread line; interrupt() now lets a go settle
    // briefly before Ctrl-C.
    it('breaks in through SIGINT when the tty turns Ctrl-C into a signal (tty echo mode)', async () => {
      const { session } = await start({ console: { echo: 'tty' }, replies: [] }, LIVE);
      await session.go({ command: 'g' });
      const stop = await session.interrupt({ timeoutMs: 5000 });
      expect(stop).to.include({ kind: 'break-in', code: '0x80000003' });
      expect((await session.execute('.echo after')).lines).to.deep.equal(['after']);
    });
  });

  describe('dumps', () => {
    it('writeDump writes the file (owner-only) and returns the success lines', async () => {
      const { session, stateFile } = await start('dump-write', LIVE);
      const path = scratch.file('live.dmp');
      const result = await session.writeDump(path, 'full');
      expect(result.lines).to.deep.equal([
        `Creating ${path} - mini user dump`,
        'Dump successfully written',
      ]);
      expect(readFileSync(path).subarray(0, 4).toString('latin1')).to.equal('MDMP');
      expect(statSync(path).mode & 0o777).to.equal(0o600);
      expect(readState(stateFile).commands).to.include(`.dump /o /ma "${path}"`);
    });

    it('returns the access-denied failure text', async () => {
      const { session } = await start('dump-access-denied', LIVE);
      const result = await session.writeDump(scratch.file('x.dmp'), 'mini');
      expect(result.lines.slice(-2)).to.deep.equal([
        'Dump creation failed, Win32 error 0n5',
        '    "Access is denied."',
      ]);
    });
  });

  describe('ending', () => {
    it('close() on a live target sends qd: the target survives', async () => {
      const { session, stateFile } = await start('live-break-in', LIVE);
      const end = await session.close();
      expect(end).to.include({ detached: true, exitCode: 0, forced: false });
      expect(readState(stateFile)).to.include({ ended: 'qd', targetAlive: true });
    });

    it('close() while the target runs breaks in first, then detaches', async () => {
      const { session, stateFile } = await start('live-break-in', LIVE);
      await session.go({ command: 'g' });
      const end = await session.close();
      expect(end).to.include({ detached: true, forced: false });
      expect(readState(stateFile)).to.include({ ended: 'qd', targetAlive: true });
    });

    it('close() on a dump sends q', async () => {
      const { session, stateFile } = await start('dump-triage-av', DUMP);
      const end = await session.close();
      expect(end).to.include({ exitCode: 0, forced: false });
      expect(readState(stateFile)).to.include({ ended: 'q', target: 'dump' });
    });

    it('an attach refusal is a TargetError naming the NTSTATUS', async () => {
      const error = await start('attach-already-debugged', LIVE).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(TargetError);
      expect((error as TargetError).message).to.include('NTSTATUS 0xC0000048');
    });
  });

  describe('faults', () => {
    it('a hung command is a TimeoutError carrying the command and the last lines', async () => {
      const { session, stateFile } = await start('hang', DUMP, { commandTimeoutMs: 800 });
      const error = await session.execute('!analyze -v').then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(TimeoutError);
      expect((error as TimeoutError).command).to.equal('!analyze -v');
      expect((error as TimeoutError).lastOutput.join('\n')).to.include('=????????');
      const end = await session.close({ timeoutMs: 3000 });
      expect(end.forced).to.equal(true);
      expect(readState(stateFile).ended).to.equal('killed');
    });

    it('a debugger exit mid-command is a DebuggerExitedError with the exit code and partial output', async () => {
      const { session } = await start('crash', DUMP);
      const error = await session.execute('!analyze -v').then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(DebuggerExitedError);
      expect((error as DebuggerExitedError).exitCode).to.equal(3);
      expect((error as DebuggerExitedError).lastOutput).to.include('DUMP_CLASS: 2');
    });

    it('caps endless output with an OutputLimitError and recovers the framing', async () => {
      const { session } = await start('endless-clrstack', DUMP);
      const error = await session.execute('!clrstack', { maxLines: 100, hardMaxLines: 5000 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(OutputLimitError);
      expect((await session.execute('kc')).lines).to.deep.equal(["Couldn't resolve error at 'kc'"]);
    });

    it('a debugger that never shows its first prompt is a start TimeoutError', async () => {
      // Long enough for the emulator (node + tsx) to print its banner on a busy machine.
      const error = await start({ startupDelayMs: -1 }, DUMP, { startTimeoutMs: 3000 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(TimeoutError);
      expect((error as TimeoutError).lastOutput.join('\n')).to.include('=????????');
    });
  });

  describe('recording', () => {
    it('replays a recorded session with the same results (fresh markers substituted)', async () => {
      const recordPath = scratch.file('session.jsonl');
      const first = await start('dump-triage-av', DUMP, { recordPath });
      const k1 = await first.session.execute('k');
      const lastEvent1 = await first.session.execute('.lastevent');
      await first.session.close();
      session = undefined;

      session = await DebuggerSession.start({
        dialect: 'cdb',
        target: DUMP,
        debuggerCommandPrefix: {
          file: process.execPath,
          args: ['--import', 'tsx', EMULATOR, '--replay', recordPath],
        },
        startTimeoutMs: 15000,
        commandTimeoutMs: 10000,
      });
      expect((await session.execute('k')).lines).to.deep.equal(k1.lines);
      expect((await session.execute('.lastevent')).lines).to.deep.equal(lastEvent1.lines);
      const end = await session.close();
      expect(end).to.include({ exitCode: 0, forced: false });
    });
  });
});
