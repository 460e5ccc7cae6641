// Dialect rules: launch arguments (-pd on every live attach), prompts, go semantics, dump
// commands and their refusals, exception-break settings, safe end commands, and stop parsing on
// real debugger text (test/fixtures/transcripts for cdb, our own winedbg captures for winedbg).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UnsafeArgumentError, UsageError } from '../../src/errors.js';
import { getDialect } from '../../src/engine/dialects/index.js';
import { TRANSCRIPTS_DIR } from '../helpers/transcripts-dir.js';

const cdb = getDialect('cdb');
const winedbg = getDialect('winedbg');

/** A transcript body (after the `# ---` header) as the engine would see it. */
function transcript(path: string): string {
  const text = readFileSync(join(TRANSCRIPTS_DIR, path), 'utf8').replace(/\r\n/g, '\n');
  return text.slice(text.indexOf('# ---\n') + '# ---\n'.length);
}

/** The text between a `0:000> g` line and the next prompt line: what a stop reader collects. */
function stopAfterGo(body: string): string {
  const lines = body.split('\n');
  const start = lines.findIndex((l) => /^\d+:\d+> g$/.test(l));
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^(?:\d+:)?\d+:\d+> /.test(l));
  return rest.slice(0, end < 0 ? undefined : end).join('\n');
}

describe('cdb dialect', () => {
  it('opens dumps with -z and never adds -pd there', () => {
    expect(cdb.launchArgs({ kind: 'dump', path: 'C:\\d\\a b.dmp' }, {})).to.deep.equal([
      '-snul',
      '-z',
      'C:\\d\\a b.dmp',
    ]);
  });

  it('adds -pd to every live attach, and -pv when noninvasive', () => {
    expect(cdb.launchArgs({ kind: 'attach', pid: 1234 }, {})).to.deep.equal([
      '-snul',
      '-p',
      '1234',
      '-pd',
    ]);
    expect(cdb.launchArgs({ kind: 'attach', pid: 1234, noninvasive: true }, {})).to.include.members(
      ['-p', '1234', '-pd', '-pv'],
    );
    expect(cdb.launchArgs({ kind: 'attach-name', name: 'app.exe' }, {})).to.deep.equal([
      '-snul',
      '-pn',
      'app.exe',
      '-pd',
    ]);
    expect(
      cdb.launchArgs({ kind: 'attach-name', name: 'app.exe', noninvasive: true }, {}),
    ).to.include.members(['-pd', '-pv']);
    expect(() => cdb.launchArgs({ kind: 'attach', pid: -1 }, {})).to.throw(UsageError);
  });

  it('passes the symbol path with -y before the target, -pd, and the program last on launch', () => {
    expect(
      cdb.launchArgs(
        { kind: 'launch', program: 'C:\\t\\app.exe', args: ['--x', 'y'] },
        {
          symbolPath: 'C:\\sym;srv*https://msdl.microsoft.com/download/symbols',
          extraArgs: ['-lines'],
        },
      ),
    ).to.deep.equal([
      '-snul',
      '-y',
      'C:\\sym;srv*https://msdl.microsoft.com/download/symbols',
      '-lines',
      '-pd',
      'C:\\t\\app.exe',
      '--x',
      'y',
    ]);
  });

  it('recognises prompts on the unfinished last line, also after partial output', () => {
    for (const prompt of ['0:000> ', '1:019> ', '0:000:x86> ', '?:???> ', 'abc0:000> ']) {
      expect(cdb.isPrompt(prompt), prompt).to.equal(true);
    }
    for (const line of ['0:000> .echo x', 'Wine-dbg>', '(5fc4.6320): CLR exception', '']) {
      expect(cdb.isPrompt(line), line).to.equal(false);
    }
    expect(cdb.stripPrompt('0:000> .echo __M__')).to.equal('.echo __M__');
  });

  it('marks with .echo and matches only the whole marker line, never its echo', () => {
    expect(cdb.markerCommand('__M1__')).to.equal('.echo __M1__');
    expect(cdb.isMarkerLine('__M1__', '__M1__')).to.equal(true);
    expect(cdb.isMarkerLine(cdb.stripPrompt('0:000> .echo __M1__'), '__M1__')).to.equal(false);
    expect(cdb.isMarkerLine('__M12__', '__M1__')).to.equal(false);
  });

  it('resumes with gn at an exception stop and g elsewhere; p/t are not go commands', () => {
    expect(cdb.goCommand(null)).to.equal('g');
    expect(cdb.goCommand({ kind: 'initial', text: '', atMs: 0 })).to.equal('g');
    expect(cdb.goCommand({ kind: 'exception', text: '', atMs: 0 })).to.equal('gn');
    for (const go of ['g', 'gh', 'gn', 'gc', 'gu', 'G', 'gn;', 'g 00007ff6`b0f81204']) {
      expect(cdb.isGoCommand(go), go).to.equal(true);
    }
    for (const other of ['p', 't', 'pa 1234', 'ta', 'k', '.echo g', 'gflags']) {
      expect(cdb.isGoCommand(other), other).to.equal(false);
    }
  });

  it('writes dumps with .dump /o /ma or /m and a quoted path', () => {
    expect(cdb.writeDumpCommand('C:\\dumps\\a b.dmp', 'full')).to.equal(
      '.dump /o /ma "C:\\dumps\\a b.dmp"',
    );
    expect(cdb.writeDumpCommand('C:\\dumps\\a.dmp', 'mini')).to.equal(
      '.dump /o /m "C:\\dumps\\a.dmp"',
    );
  });

  it('refuses dump paths that cannot be passed safely', () => {
    for (const bad of [
      'C:\\a"b.dmp',
      'C:\\a;q.dmp',
      'C:\\a\nb.dmp',
      'C:\\dümp.dmp',
      '',
      'C:\\${x}.dmp',
    ]) {
      expect(() => cdb.writeDumpCommand(bad, 'full'), JSON.stringify(bad)).to.throw(
        UnsafeArgumentError,
      );
    }
  });

  it('turns exception settings into sx commands', () => {
    expect(
      cdb.exceptionBreakCommands({
        clr: true,
        av: true,
        cpp: true,
        codes: ['E0434F4D', '0x80000003'],
      }),
    ).to.deep.equal(['sxd *', 'sxe av', 'sxe clr', 'sxe eh', 'sxe 0xe0434f4d', 'sxe 0x80000003']);
    expect(cdb.exceptionBreakCommands({ allFirstChance: true })).to.deep.equal(['sxe *']);
    expect(() => cdb.exceptionBreakCommands({ codes: ['av; q'] })).to.throw(UnsafeArgumentError);
  });

  it('ends live sessions with qd (detach) and dumps with q', () => {
    expect(cdb.endCommands({ kind: 'attach', pid: 5 })).to.deep.equal(['qd']);
    expect(cdb.endCommands({ kind: 'attach-name', name: 'x' })).to.deep.equal(['qd']);
    expect(cdb.endCommands({ kind: 'launch', program: 'x', args: [] })).to.deep.equal(['qd']);
    expect(cdb.endCommands({ kind: 'dump', path: 'x' })).to.deep.equal(['q']);
  });

  it('sets up a bare prompt with .prompt_allow', () => {
    expect(cdb.setupCommands({ kind: 'attach', pid: 1 })).to.deep.equal([
      '.prompt_allow -dis -ea -reg -src -sym',
    ]);
  });

  it('reads a CLR second-chance stop from a real transcript as a typed exception', () => {
    const stop = cdb.parseStop(
      stopAfterGo(transcript('events/clr-e0434352-first-and-second-chance-net8-x64.txt')),
    );
    expect(stop.kind).to.equal('exception');
    expect(stop.code).to.equal('0xe0434352');
    expect(stop.chance).to.equal('second');
    expect(stop.event?.processId).to.equal('0x5fc4');
  });

  it('reads a process-exit stop (NtTerminateProcess) from a real transcript', () => {
    const stop = cdb.parseStop(
      stopAfterGo(transcript('events/net4-unknown-exception-e0434352-before-sos-many.txt')),
    );
    expect(stop.kind).to.equal('exit');
    expect(stop.processExited).to.equal(true);
  });

  it('recognises attach failures in the banner', () => {
    // The text SkyLined/mBugId matches, cCdbWrapper_fAttachCdbToProcessForId.py
    // (https://github.com/SkyLined/mBugId)
    expect(cdb.startFailure('Cannot debug pid 1234, Win32 error 0n87\n')).to.deep.include({
      reason: 'attach-failed',
    });
    expect(cdb.startFailure('Microsoft (R) Windows Debugger Version 10.0\n')).to.equal(null);
  });
});

describe('winedbg dialect', () => {
  it('attaches by pid, opens dumps and launches programs; it cannot attach by name', () => {
    expect(winedbg.launchArgs({ kind: 'attach', pid: 1288 }, {})).to.deep.equal(['1288']);
    expect(winedbg.launchArgs({ kind: 'dump', path: '/tmp/a.dmp' }, {})).to.deep.equal([
      '/tmp/a.dmp',
    ]);
    expect(
      winedbg.launchArgs({ kind: 'launch', program: 'av.exe', args: ['0'] }, {}),
    ).to.deep.equal(['av.exe', '0']);
    expect(winedbg.launchArgs({ kind: 'none' }, {})).to.deep.equal([]);
    expect(() => winedbg.launchArgs({ kind: 'attach-name', name: 'x.exe' }, {})).to.throw(
      UsageError,
    );
  });

  it('spawns through stty -icrnl -icanon -echo, never stty raw', () => {
    const spawn = winedbg.spawnCommand('winedbg', ['1288']);
    expect(spawn.file).to.equal('sh');
    expect(spawn.args[1]).to.equal('stty -icrnl -icanon -echo; exec "$0" "$@"');
    expect(spawn.args.slice(2)).to.deep.equal(['winedbg', '1288']);
    expect(spawn.args.join(' ')).not.to.include('raw');
  });

  it('recognises the Wine-dbg> prompt and echo lines', () => {
    expect(winedbg.isPrompt('Wine-dbg>')).to.equal(true);
    expect(winedbg.isPrompt('Wine-dbg>echo X')).to.equal(false);
    expect(winedbg.stripPrompt('Wine-dbg>echo __M7__')).to.equal('echo __M7__');
  });

  it('takes the marker line or the no-process form, never the echoed command', () => {
    expect(winedbg.markerCommand('__M7__')).to.equal('echo __M7__');
    expect(winedbg.isMarkerLine('__M7__', '__M7__')).to.equal(true);
    expect(
      winedbg.isMarkerLine("No process loaded, cannot execute 'echo __M7__'", '__M7__'),
    ).to.equal(true);
    expect(winedbg.isMarkerLine('echo __M7__', '__M7__')).to.equal(false);
  });

  it('passes exceptions on with pass, continues elsewhere with cont', () => {
    expect(winedbg.goCommand({ kind: 'exception', text: '', atMs: 0 })).to.equal('pass');
    expect(winedbg.goCommand({ kind: 'break-in', text: '', atMs: 0 })).to.equal('cont');
    // Attached while the program raised (test/e2e/winedbg-session.test.ts under load): the
    // exception came before the attach's own break, so the attach stop is that exception, and
    // going on from it hands it to the program. The attach stop proper goes on with `cont`.
    const raced = winedbg.parseStop(
      'WineDbg starting on pid 0020\nFirst chance exception: 0xe0434f4d in 64-bit code (0x0000007b013d7e).\nRegister dump:',
    );
    expect(raced).to.deep.include({ code: '0xe0434f4d', chance: 'first' });
    expect(winedbg.goCommand({ ...raced, kind: 'initial' })).to.equal('pass');
    const attachStop = winedbg.parseStop(
      'WineDbg starting on pid 0020\n0x000001700555f5 ntdll+0x555f5: ret',
    );
    expect(winedbg.goCommand({ ...attachStop, kind: 'initial' })).to.equal('cont');
    expect(winedbg.goCommand(null)).to.equal('cont');
    expect(['cont', 'c', 'pass'].every((c) => winedbg.isGoCommand(c))).to.equal(true);
    expect(['bt', 'step', 'continue-ish'].some((c) => winedbg.isGoCommand(c))).to.equal(false);
  });

  it('writes minidumps to quoted unix paths and refuses the lab path traps', () => {
    expect(winedbg.writeDumpCommand('/tmp/d/x.dmp', 'mini')).to.equal('minidump "/tmp/d/x.dmp"');
    for (const bad of [
      'Z:\\tmp\\x.dmp',
      '/tmp/a b.dmp',
      '/tmp/a"b.dmp',
      '/tmp/a;b',
      '/tmp/\n',
      '',
    ]) {
      expect(() => winedbg.writeDumpCommand(bad, 'mini'), JSON.stringify(bad)).to.throw(
        UnsafeArgumentError,
      );
    }
  });

  it('resets the registry-persisted $BreakOnFirstChance at the start of every live session', () => {
    expect(winedbg.setupCommands({ kind: 'attach', pid: 1 })).to.deep.equal([
      'set $BreakOnFirstChance=1',
    ]);
    expect(winedbg.setupCommands({ kind: 'launch', program: 'x.exe', args: [] })).to.deep.equal([
      'set $BreakOnFirstChance=1',
    ]);
    // Without a process winedbg refuses `set` ("No process loaded, cannot execute 'set …'").
    expect(winedbg.setupCommands({ kind: 'none' })).to.deep.equal([]);
    expect(winedbg.setupCommands({ kind: 'dump', path: 'x.dmp' })).to.deep.equal([]);
  });

  it('maps exception settings to the global $BreakOnFirstChance', () => {
    expect(winedbg.exceptionBreakCommands({ clr: true })).to.deep.equal([
      'set $BreakOnFirstChance=1',
    ]);
    expect(winedbg.exceptionBreakCommands({})).to.deep.equal(['set $BreakOnFirstChance=0']);
  });

  it('ends attached and launched sessions with detach then quit', () => {
    expect(winedbg.endCommands({ kind: 'attach', pid: 5 })).to.deep.equal(['detach', 'quit']);
    expect(winedbg.endCommands({ kind: 'launch', program: 'x', args: [] })).to.deep.equal([
      'detach',
      'quit',
    ]);
    expect(winedbg.endCommands({ kind: 'dump', path: 'x' })).to.deep.equal(['quit']);
    expect(winedbg.endCommands({ kind: 'none' })).to.deep.equal(['quit']);
  });

  it('refuses ; chains (winedbg runs only the first part)', () => {
    expect(() => winedbg.validateCommand('print 1; print 2')).to.throw(UnsafeArgumentError);
    expect(() => winedbg.validateCommand('')).to.throw(UnsafeArgumentError);
  });

  it('types the stops measured in the lab', () => {
    // Exact lines winedbg 8 printed under Wine (as in test/parsers/fixtures/winedbg/*.txt)
    const av = winedbg.parseStop(
      'pass\nFirst chance exception: page fault on write access to 0x0000000000000010 in 64-bit code (0x0000014000157a).\nRegister dump:',
    );
    expect(av).to.deep.include({ kind: 'exception', code: '0xc0000005', chance: 'first' });
    const unhandled = winedbg.parseStop(
      'Unhandled exception: 0xe0434f4d in 64-bit code (0x0000007b013d7e).',
    );
    expect(unhandled).to.deep.include({ kind: 'exception', code: '0xe0434f4d', chance: 'second' });
    const exit = winedbg.parseStop('Process of pid=0458 has terminated');
    expect(exit).to.deep.include({ kind: 'exit', processExited: true });
    const brk = winedbg.parseStop('Ctrl-C: stopping debuggee\n0x000001700555f5 ntdll+0x555f5: ret');
    expect(brk.kind).to.equal('break-in');
    const initial = winedbg.parseStop(
      'WineDbg starting on pid 0508\n0x000001700555f5 ntdll+0x555f5: ret',
    );
    expect(initial.kind).to.equal('initial');
  });

  it('recognises a refused attach', () => {
    expect(winedbg.startFailure("Can't attach process 1869f: error 87")).to.deep.equal({
      reason: 'attach-failed',
      message: 'winedbg cannot attach to process 0x1869f: error 87',
    });
  });
});
