// The emulator on its own, over a raw node-pty: every console behaviour the engine relies on,
// checked on the exact bytes a client reads.
import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDump, type InspectedDumpOk } from '../../src/report/inspect/index.js';
import { assertValid } from '../../src/report/schemas.js';
import { SYNTHETIC_DUMP_COMMENT } from './dump-file.js';
import { EmulatorPty, readState, SCENARIOS, Scratch } from './emulator-pty.js';
import { resolveText } from './transcripts.js';

const scenario = (name: string): string => join(SCENARIOS, `${name}.json`);
const crlf = (lines: readonly string[]): string => lines.map((l) => `${l}\r\n`).join('');

/** The `.dump` file read back with the harness's own reader; it must parse, schema-valid. */
async function readDump(path: string): Promise<InspectedDumpOk> {
  // The emulator's synthetic dump carries no register context, so there is no stack to walk:
  // read it as the workflows verify a written dump, without walks.
  const info = await inspectDump(path, { threads: 'none' });
  if (!info.ok) throw new Error(`${path}: ${info.error.message}`);
  assertValid('inspect', { schemaVersion: 1, dumps: [info] });
  expect(info.warnings).to.deep.equal([]);
  expect(info.comments).to.deep.equal([SYNTHETIC_DUMP_COMMENT]);
  expect(info.system).to.include({ arch: 'amd64', osVersion: '10.0.19041', platform: 'windows' });
  expect(info.threads).to.have.length(1);
  expect(info.modules).to.have.length(1);
  return info;
}

describe('cdb emulator over a raw pty', function () {
  this.timeout(20000);
  let scratch: Scratch;
  let emulator: EmulatorPty | undefined;

  beforeEach(() => {
    scratch = new Scratch();
  });

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
    scratch.cleanup();
  });

  function start(options: ConstructorParameters<typeof EmulatorPty>[0]): EmulatorPty {
    emulator = new EmulatorPty(options);
    return emulator;
  }

  /** Type a line and wait until the prompt is back; returns what was printed meanwhile. */
  async function type(cdb: EmulatorPty, line: string, prompt = '0:000> '): Promise<string> {
    const from = cdb.output.length;
    cdb.write(`${line}\r`);
    return cdb.waitFor((text) => text.endsWith(prompt) && text.length > line.length + 2, { from });
  }

  describe('console', () => {
    it('prints the dump banner with the given dump path, then the prompt with no newline', async () => {
      const cdb = start({
        scenarioFile: scenario('dump-triage-av'),
        cdbArgs: ['-z', 'D:\\crash\\app.dmp'],
      });
      const text = await cdb.waitForPrompt();
      expect(
        text.startsWith('\r\nMicrosoft (R) Windows Debugger Version 10.0.10586.567 AMD64\r\n'),
      ).to.equal(true);
      expect(text).to.include('\r\nLoading Dump File [D:\\crash\\app.dmp]\r\n');
      expect(text.endsWith('=????????\r\n0:000> ')).to.equal(true);
    });

    it('prints the live attach banner for -p', async () => {
      const cdb = start({
        scenarioFile: scenario('live-break-in'),
        cdbArgs: ['-p', '4242', '-pd'],
      });
      const text = await cdb.waitForPrompt();
      expect(text).to.include('*** wait with pending attach\r\n');
      expect(text).to.include(
        '(d9c.82a4): Break instruction exception - code 80000003 (first chance)\r\n',
      );
    });

    it('echoes a line when it reads it, right after the prompt, and answers with CRLF lines', async () => {
      const cdb = start({ scenarioFile: scenario('dump-triage-av') });
      const from = (await cdb.waitForPrompt()).length;
      cdb.write('.echo hello there\r');
      await cdb.waitFor('0:000> .echo hello there\r\nhello there\r\n0:000> ', { from: from - 7 });
    });

    it('holds typed-ahead lines unechoed until it reads each one, after its own prompt', async () => {
      const cdb = start({ scenarioFile: scenario('dump-triage-av') });
      const from = (await cdb.waitForPrompt()).length;
      cdb.write('k\r.echo MARK_1\r');
      const text = await cdb.waitFor('MARK_1\r\n0:000> ', { from });
      const k = resolveText({ transcript: 'misc/k-x64-notepad-with-header.txt', from: '0:000> k' });
      expect(text).to.equal(`k\r\n${crlf(k)}0:000> .echo MARK_1\r\nMARK_1\r\n0:000> `);
    });

    it('uses the scenario prompt (WoW64 :x86) and wraps output in ConPTY-style VT sequences', async () => {
      const cdb = start({ scenarioFile: scenario('conpty-vt-x86-prompt') });
      const banner = await cdb.waitFor((t) => t.endsWith('0:000:x86> \x1b[?25h'));
      expect(banner.startsWith('\x1b[?25l\x1b[2J')).to.equal(true);
      expect(banner).to.include('wow64cpu!TurboDispatchJumpAddressEnd+0x544:\x1b[K\r\n');
      const from = cdb.output.length;
      cdb.write('kc\r');
      const text = await cdb.waitFor((t) => t.endsWith('0:000:x86> \x1b[?25h'), { from });
      expect(text).to.include('00 ntdll!LdrpDoDebuggerBreak\x1b[K\r\n');
    });

    it('leaves echo to the kernel in tty mode, which turns CRLF into CR CR LF', async () => {
      const file = scratch.scenario({ console: { echo: 'tty' } });
      const cdb = start({ scenarioFile: file });
      await cdb.waitForPrompt();
      const from = cdb.output.length;
      cdb.write('.echo TTY\r');
      const text = await cdb.waitFor('TTY\r\r\n0:000> ', { from });
      // The kernel echoed the typed line itself (ICRNL + ONLCR: "\r" comes back as "\r\n").
      expect(text.startsWith('.echo TTY\r\n')).to.equal(true);
    });
  });

  describe('commands', () => {
    it('drops the rest of a ; chain after an error, and reads the next line normally', async () => {
      const cdb = start({ scenarioFile: scenario('dump-triage-av') });
      await cdb.waitForPrompt();
      const text = await type(cdb, 'bogus; .echo NOT_REACHED');
      expect(text).to.include("Couldn't resolve error at 'bogus'\r\n");
      expect(text).not.to.include('\r\nNOT_REACHED\r\n');
      expect(await type(cdb, '.echo REACHED')).to.include('\r\nREACHED\r\n');
    });

    it('keeps a quoted ; inside .echo, and runs every command of a clean chain', async () => {
      const cdb = start({ scenarioFile: scenario('dump-triage-av') });
      await cdb.waitForPrompt();
      expect(await type(cdb, '.echo "a;b"')).to.include('\r\na;b\r\n');
      expect(await type(cdb, '.echo one; .echo two')).to.include('\r\none\r\ntwo\r\n');
    });

    it('formats .printf markers from char codes in the default radix 16', async () => {
      const cdb = start({ scenarioFile: scenario('dump-triage-av') });
      await cdb.waitForPrompt();
      const text = await type(
        cdb,
        '.printf "%c%c%c_%d_%x_%s\\n", 0x3d, 3c, 0n91, 0n10, 0n255, "end"',
      );
      expect(text).to.include('\r\n=<[_10_ff_end\r\n0:000> ');
    });

    it('answers canned commands with the transcript body, without its own prompt line', async () => {
      const cdb = start({ scenarioFile: scenario('dump-triage-av') });
      await cdb.waitForPrompt();
      const text = await type(cdb, '!analyze -v');
      const body = resolveText({
        transcript: 'startup/fuzzmanager-full-session-win10-x64-av.txt',
        from: '0:000> !analyze -v',
      });
      expect(text).to.equal(`!analyze -v\r\n${crlf(body)}0:000> `);
      expect(body[0]).to.equal(
        '*******************************************************************************',
      );
      expect(body[body.length - 1]).to.equal('');
    });

    it('answers successive !heap -s samples from successive transcripts', async () => {
      const cdb = start({ scenarioFile: scenario('heap-s-sequence') });
      await cdb.waitForPrompt();
      expect(await type(cdb, '!heap -s')).to.include('0x64ecab356b9e5983');
      expect(await type(cdb, '!heap -s -h 0')).to.include('0xa893144b6b979747');
      expect(await type(cdb, '!heap -s')).to.include('0x000000454b25cb0c');
      expect(await type(cdb, '!heap -s')).to.include('0x000000454b25cb0c');
    });

    it('fails .loadby sos clr before clr is loaded and drops the rest of the chain', async () => {
      const cdb = start({
        scenarioFile: scenario('loadby-sos-before-clr'),
        cdbArgs: ['-p', '77', '-pd'],
      });
      await cdb.waitForPrompt();
      const text = await type(cdb, '.loadby sos clr; .echo AFTER');
      expect(text).to.equal(
        ".loadby sos clr; .echo AFTER\r\nUnable to find module 'clr'\r\n0:000> ",
      );
    });
  });

  describe('.loadby without a scenario reply', () => {
    it("fails until a ModLoad line has named the runtime, with the clr line's text", async () => {
      const cdb = start({
        scenarioFile: scenario('live-clr-first-chance'),
        cdbArgs: ['-p', '99', '-pd'],
      });
      await cdb.waitForPrompt();
      expect(await type(cdb, '.loadby sos coreclr; .echo AFTER')).to.equal(
        ".loadby sos coreclr; .echo AFTER\r\nUnable to find module 'coreclr'\r\n0:000> ",
      );
      // The first event's ModLoad lines include coreclr.dll (the transcript's line 5).
      await type(cdb, 'sxe ld');
      expect(await type(cdb, 'g')).to.include('\\coreclr.dll\r\n');
      expect(await type(cdb, '.loadby sos coreclr; .echo LOADED')).to.equal(
        '.loadby sos coreclr; .echo LOADED\r\nLOADED\r\n0:000> ',
      );
      expect(await type(cdb, '.loadby sos clr')).to.equal(
        ".loadby sos clr\r\nUnable to find module 'clr'\r\n0:000> ",
      );
    });

    it('succeeds silently on a dump, whose module list is not scripted', async () => {
      const cdb = start({
        scenarioFile: scenario('dump-triage-av'),
        cdbArgs: ['-z', 'D:\\crash\\app.dmp'],
      });
      await cdb.waitForPrompt();
      expect(await type(cdb, '.loadby sos clr; .echo OK')).to.equal(
        '.loadby sos clr; .echo OK\r\nOK\r\n0:000> ',
      );
    });
  });

  describe('running the target', () => {
    it('passes first-chance CLR exceptions under the default filters and stops at the second chance', async () => {
      const cdb = start({
        scenarioFile: scenario('live-clr-first-chance'),
        cdbArgs: ['-p', '99', '-pd'],
      });
      await cdb.waitForPrompt();
      const text = await type(cdb, 'g');
      expect(text).to.include(
        '\r\n(5fc4.6320): Unknown exception - code 04242420 (first chance)\r\nModLoad:',
      );
      // Printed alone and passed: the next line is the next event, not stop context.
      expect(text).to.include(
        '(5fc4.6320): CLR exception - code e0434352 (first chance)\r\n(5fc4.6320): CLR exception - code e0434352 (first chance)\r\nCLR exception type: System.FormatException\r\n',
      );
      expect(text).to.match(
        /\(!!! second chance !!!\)\r\nCLR exception type: System.AggregateException\r\n {4}"One or more errors occurred."\r\nKERNELBASE!RaiseException\+0x6c:\r\n.*nop {5}dword ptr \[rax\+rax\]\r\n0:000> $/,
      );
    });

    it('stops at first-chance CLR exceptions after sxe clr, with event-scoped replies', async () => {
      const cdb = start({
        scenarioFile: scenario('live-clr-first-chance'),
        cdbArgs: ['-p', '99', '-pd'],
      });
      await cdb.waitForPrompt();
      await type(cdb, 'sxe clr');
      const first = await type(cdb, 'g');
      expect(first).to.match(
        /code e0434352 \(first chance\)\r\nKERNELBASE!RaiseException\+0x6c:\r\n.*\r\n0:000> $/,
      );
      expect(first).not.to.include('CLR exception type');
      const second = await type(cdb, 'g');
      expect(second).to.include('CLR exception type: System.FormatException\r\n');
      expect(await type(cdb, '!pe')).to.include('Exception type:   System.Exception\r\n');
      await type(cdb, 'g');
      // After the second-chance stop the stop-scoped !pe is gone: the global reply answers.
      expect(await type(cdb, '!pe')).to.include('System.ArgumentException');
    });

    it('prints nothing for exceptions under sxi and stops at the process exit (sxe epr)', async () => {
      const cdb = start({
        scenarioFile: scenario('live-clr-first-chance'),
        cdbArgs: ['-p', '99', '-pd'],
      });
      await cdb.waitForPrompt();
      await type(cdb, 'sxi clr');
      const text = await type(cdb, 'g');
      expect(text).not.to.include('e0434352');
      expect(text).to.include(
        'ntdll!NtTerminateProcess+0x12:\r\n7740fcc2 83c404          add     esp,4\r\n0:000> ',
      );
    });

    it('runs commands that follow g in the same chain at the stop', async () => {
      const cdb = start({
        scenarioFile: scenario('loadby-sos-before-clr'),
        cdbArgs: ['-p', '77', '-pd'],
      });
      await cdb.waitForPrompt();
      const text = await type(cdb, 'sxe ld:clrjit; g; .loadby sos clr; .echo LOADED');
      expect(text).to.include('\\clrjit.dll\r\nLOADED\r\n0:000> ');
    });

    it('breaks in on Ctrl-C (a \\x03 byte) while the target runs, and ignores it at the prompt', async () => {
      const state = scratch.file('state.json');
      const cdb = start({
        scenarioFile: scenario('live-break-in'),
        stateFile: state,
        cdbArgs: ['-p', '4242', '-pd'],
      });
      await cdb.waitForPrompt();
      const from = cdb.output.length;
      cdb.write('g\r');
      await cdb.waitFor('g\r\n', { from });
      await new Promise((r) => setTimeout(r, 150));
      expect(cdb.since(from)).to.equal('g\r\n');
      cdb.write('\x03');
      const text = await cdb.waitForPrompt(from, '0:001> ');
      expect(text).to.equal(
        `g\r\n${crlf(resolveText({ transcript: 'events/onecode-win7-x86-breakin-after-htrace.txt' }))}0:001> `,
      );
      cdb.write('\x03');
      expect(await type(cdb, '.echo STILL_HERE', '0:001> ')).to.include('STILL_HERE');
      expect(readState(state).interrupts).to.equal(2);
    });

    it('breaks in on SIGINT too (a tty with ISIG turns Ctrl-C into SIGINT)', async () => {
      const cdb = start({
        scenarioFile: scenario('live-break-in'),
        cdbArgs: ['-p', '4242', '-pd'],
      });
      await cdb.waitForPrompt();
      const from = cdb.output.length;
      cdb.write('g\r');
      await cdb.waitFor('g\r\n', { from });
      cdb.signal('SIGINT');
      await cdb.waitFor('Break instruction exception - code 80000003 (first chance)', { from });
    });
  });

  describe('dumps', () => {
    it('writes a readable full minidump for .dump /o /ma and prints the dbgeng success lines', async () => {
      const state = scratch.file('state.json');
      const cdb = start({
        scenarioFile: scenario('dump-write'),
        stateFile: state,
        cdbArgs: ['-p', '12', '-pd'],
      });
      await cdb.waitForPrompt();
      const path = scratch.file('out dir.dmp');
      const text = await type(cdb, `.dump /o /ma "${path}"`);
      expect(text).to.include(
        `\r\nCreating ${path} - mini user dump\r\nDump successfully written\r\n0:000> `,
      );
      expect(readState(state).dumps).to.deep.equal([path]);
      const info = await readDump(path);
      expect(info.kind).to.equal('full');
      expect(info.memory.sources).to.deep.equal(['Memory64List']);
      expect(info.process).to.include({ pid: 12, name: 'app.exe' });
      // Stopped at the attach banner's initial break-in, "(d9c.82a4): Break instruction exception".
      expect(info.exception).to.include({ code: '0x80000003', threadId: 0x82a4 });
      expect(info.threads[0]).to.include({ id: 0x82a4, faulting: true });
    });

    it('dumps the CLR exception it is stopped at; /m writes a mini dump of the scenario process', async () => {
      const base = JSON.parse(readFileSync(scenario('live-clr-first-chance'), 'utf8')) as object;
      const cdb = start({
        scenarioFile: scratch.scenario({ ...base, processName: 'ExceptionExample.exe' }),
        cdbArgs: ['-p', '99', '-pd'],
      });
      await cdb.waitForPrompt();
      await type(cdb, 'sxe clr');
      expect(await type(cdb, 'g')).to.include('CLR exception - code e0434352 (first chance)');
      const path = scratch.file('clr.dmp');
      expect(await type(cdb, `.dump /o /m "${path}"`)).to.include('Dump successfully written');
      const info = await readDump(path);
      expect(info.kind).to.equal('mini');
      expect(info.memory.sources).to.deep.equal(['MemoryList']);
      expect(info.process).to.include({ pid: 99, name: 'ExceptionExample.exe' });
      // "(5fc4.6320): CLR exception - code e0434352 (first chance)"
      expect(info.exception).to.include({ code: '0xe0434352', threadId: 0x6320 });
      expect(info.threads[0]).to.include({ id: 0x6320, faulting: true });
    });

    it('a noninvasive -pv attach has no exception to dump; -pn names the process', async () => {
      const cdb = start({
        scenarioFile: scratch.scenario({ pid: 5868, dump: { result: 'success' } }),
        cdbArgs: ['-pn', 'w3wp.exe', '-pv'],
      });
      await cdb.waitForPrompt();
      const path = scratch.file('pv.dmp');
      await type(cdb, `.dump /o /ma "${path}"`);
      const info = await readDump(path);
      expect(info.kind).to.equal('full');
      expect(info.process).to.include({ pid: 5868, name: 'w3wp.exe' });
      expect(info.exception).to.equal(null);
    });

    it('prints the access-denied failure and writes nothing when the scenario says so', async () => {
      const cdb = start({
        scenarioFile: scenario('dump-access-denied'),
        cdbArgs: ['-p', '12', '-pd'],
      });
      await cdb.waitForPrompt();
      const path = scratch.file('x.dmp');
      const text = await type(cdb, `.dump /o /ma "${path}"`);
      expect(text).to.include(
        `\r\nCreating ${path} - mini user dump\r\nGenInvokeEnumStackProviders(`,
      );
      expect(text).to.include(
        'Dump creation failed, Win32 error 0n5\r\n    "Access is denied."\r\n0:000> ',
      );
      expect(existsSync(path)).to.equal(false);
    });
  });

  describe('ending a session', () => {
    async function endWith(
      cdbArgs: string[],
      lines: string[],
    ): Promise<ReturnType<typeof readState>> {
      const state = scratch.file('state.json');
      const cdb = start({ scenarioFile: scenario('live-break-in'), stateFile: state, cdbArgs });
      await cdb.waitForPrompt();
      for (const line of lines.slice(0, -1)) await type(cdb, line);
      cdb.write(`${lines[lines.length - 1] ?? ''}\r`);
      const exit = await cdb.waitForExit();
      expect(exit.exitCode).to.equal(0);
      expect(cdb.output.endsWith('quit:\r\n')).to.equal(true);
      return readState(state);
    }

    it('q on an invasive attach without -pd kills the target', async () => {
      const record = await endWith(['-p', '4242'], ['q']);
      expect(record).to.include({ ended: 'q', targetAlive: false });
      expect(record.commands).to.deep.equal(['q']);
    });

    it('qd detaches: the target survives', async () => {
      expect(await endWith(['-p', '4242'], ['qd'])).to.include({ ended: 'qd', targetAlive: true });
    });

    it('q with -pd detaches, as does q after .detach', async () => {
      expect(await endWith(['-p', '4242', '-pd'], ['q'])).to.include({
        ended: 'q',
        targetAlive: true,
      });
      scratch.cleanup();
      scratch = new Scratch();
      await emulator?.close();
      const record = await endWith(['-p', '4242'], ['.detach', 'q']);
      expect(record).to.include({ ended: 'q', targetAlive: true, detached: true });
    });

    it('a noninvasive -pv session never kills the target', async () => {
      expect(await endWith(['-p', '4242', '-pv'], ['q'])).to.include({
        ended: 'q',
        targetAlive: true,
      });
    });

    it('q on a dump only closes cdb', async () => {
      const state = scratch.file('state.json');
      const cdb = start({ scenarioFile: scenario('dump-triage-av'), stateFile: state });
      await cdb.waitForPrompt();
      cdb.write('q\r');
      await cdb.waitForExit();
      expect(readState(state)).to.include({ ended: 'q', target: 'dump', targetAlive: true });
    });

    it('records a kill (SIGHUP when the pty closes): an invasive target dies with cdb', async () => {
      const state = scratch.file('state.json');
      const cdb = start({
        scenarioFile: scenario('live-break-in'),
        stateFile: state,
        cdbArgs: ['-p', '4242'],
      });
      await cdb.waitForPrompt();
      cdb.signal('SIGHUP');
      await cdb.waitForExit();
      expect(readState(state)).to.include({ ended: 'killed', targetAlive: false, exitCode: 129 });
    });

    it('reports the already-debugged attach failure and exits 1', async () => {
      const state = scratch.file('state.json');
      const cdb = start({
        scenarioFile: scenario('attach-already-debugged'),
        stateFile: state,
        cdbArgs: ['-p', '1234', '-pd'],
      });
      const exit = await cdb.waitForExit();
      expect(exit.exitCode).to.equal(1);
      expect(cdb.output).to.include(
        'Cannot debug pid 1234, NTSTATUS 0xC0000048\r\n    "The process that you are attempting to attach to is already being debugged.',
      );
      expect(cdb.output.endsWith('Unable to initialize target, NTSTATUS 0xC0000048\r\n')).to.equal(
        true,
      );
      expect(readState(state)).to.include({ ended: 'attach-failed', targetAlive: true });
    });
  });

  describe('faults', () => {
    it('hang: never answers the command, nor anything typed after it', async () => {
      const cdb = start({ scenarioFile: scenario('hang') });
      await cdb.waitForPrompt();
      const from = cdb.output.length;
      cdb.write('!analyze -v\r.echo NEVER\r');
      await new Promise((r) => setTimeout(r, 400));
      expect(cdb.since(from)).to.equal('!analyze -v\r\n');
    });

    it('exit mid-command: prints part of the reply, then exits with the scenario code', async () => {
      const state = scratch.file('state.json');
      const cdb = start({ scenarioFile: scenario('crash'), stateFile: state });
      await cdb.waitForPrompt();
      const from = cdb.output.length;
      cdb.write('!analyze -v\r');
      const exit = await cdb.waitForExit();
      expect(exit.exitCode).to.equal(3);
      const body = resolveText({
        transcript: 'startup/fuzzmanager-full-session-win10-x64-av.txt',
        from: '0:000> !analyze -v',
      });
      expect(cdb.since(from)).to.equal(`!analyze -v\r\n${crlf(body.slice(0, 12))}`);
      expect(readState(state)).to.include({ ended: 'crashed', exitCode: 3 });
    });

    it('split output: the same bytes arrive, in many small reads', async () => {
      const cdb = start({ scenarioFile: scenario('split-slow-noise') });
      await cdb.waitForPrompt();
      const readsBefore = cdb.reads;
      const text = await type(cdb, 'kc');
      const body = resolveText({ transcript: 'misc/kc-x64-call-site-only.txt' });
      expect(text).to.equal(`kc\r\n${crlf(body)}0:000> `);
      expect(cdb.reads - readsBefore).to.be.greaterThan(10);
    });

    it('slow output: a pause between pieces, still the same bytes', async () => {
      const cdb = start({ scenarioFile: scenario('split-slow-noise') });
      await cdb.waitForPrompt();
      const started = performance.now();
      const text = await type(cdb, '.exr -1');
      const body = resolveText({
        transcript: 'misc/exr-minus1-initial-breakpoint-x64-then-kv.txt',
      });
      expect(text).to.equal(`.exr -1\r\n${crlf(body)}0:000> `);
      // 5 lines of about 60 bytes in pieces of at most 7 bytes, 3 ms apart.
      expect(performance.now() - started).to.be.greaterThan(100);
    });

    it('symbol noise: a symbol error line lands in the middle of a reply line', async () => {
      const cdb = start({ scenarioFile: scenario('split-slow-noise') });
      await cdb.waitForPrompt();
      const text = await type(cdb, 'k');
      expect(text).to.include(
        '\r\n00 000000c8`2647bd08 *** ERROR: Symbol file could not be found.  Defaulted to export symbols for ntdll.dll -\r\n00007ff8`07829fe1     win32u!NtUserGetProp+0x14\r\n',
      );
    });

    it('endless output: repeats a real line until Ctrl-C, then reads on', async () => {
      const cdb = start({ scenarioFile: scenario('endless-clrstack') });
      await cdb.waitForPrompt();
      const from = cdb.output.length;
      cdb.write('!clrstack\r');
      await cdb.waitFor((t) => t.length > 200_000, { from });
      cdb.write('\x03.echo BACK\r');
      const text = await cdb.waitFor('BACK\r\n0:000> ', { from, timeoutMs: 15000 });
      expect(
        text.startsWith(
          '!clrstack\r\nOS Thread Id: 0x20cc (0)\r\nChild SP       IP Call Site\r\n006ff1a4 77201a8c [GCFrame: 006ff1a4]\r\n',
        ),
      ).to.equal(true);
    });

    it('startupDelayMs -1: never reaches the first prompt', async () => {
      const file = scratch.scenario({ startupDelayMs: -1 });
      const cdb = start({ scenarioFile: file });
      await cdb.waitFor('=????????\r\n');
      await new Promise((r) => setTimeout(r, 300));
      expect(cdb.output.endsWith('0:000> ')).to.equal(false);
    });
  });

  describe('replay', () => {
    it('plays a recording back, substituting the live marker for the recorded one', async () => {
      const recording = scratch.file('session.jsonl');
      const records = [
        { t: 0, dir: 'in', data: '{"spawn":"cdb.exe","args":["-z","x.dmp"]}' },
        {
          t: 1,
          dir: 'out',
          data: '\r\nMicrosoft (R) Windows Debugger Version 10.0.10586.567 AMD64\r\n0:000> ',
        },
        { t: 2, dir: 'in', data: 'k\r.echo __CDBH_aaaaaaaa_1__\r' },
        {
          t: 3,
          dir: 'out',
          data: 'k\r\n00 000000c8`2647f708 00007ff6`6e783d36     notepad!wWinMain\r\n0:000> ',
        },
        { t: 4, dir: 'out', data: '.echo __CDBH_aaaaaaaa_1__\r\n__CDBH_aaaaaaaa_1__\r\n0:000> ' },
        { t: 5, dir: 'in', data: 'q\r' },
        { t: 6, dir: 'out', data: 'q\r\nquit:\r\n' },
        { t: 7, dir: 'exit', data: '{"exitCode":0,"signal":null}' },
      ];
      writeFileSync(recording, records.map((r) => JSON.stringify(r)).join('\n'));
      const cdb = start({ rawArgs: ['--replay', recording, '-z', 'x.dmp'] });
      await cdb.waitForPrompt();
      const from = cdb.output.length;
      cdb.write('k\r.echo __CDBH_12345678_1__\r');
      const text = await cdb.waitFor('__CDBH_12345678_1__\r\n0:000> ', { from });
      expect(text).to.include('.echo __CDBH_12345678_1__\r\n__CDBH_12345678_1__\r\n');
      cdb.write('q\r');
      expect((await cdb.waitForExit()).exitCode).to.equal(0);
    });
  });
});
