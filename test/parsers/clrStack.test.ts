import { expect } from 'chai';
import { parseClrStack } from '../../src/parsers/clr-stack.js';
import { splitLog } from '../../src/parsers/split-log.js';
import type { ClrStackRecord, ClrStackThread } from '../../src/parsers/records.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody, untestedTranscripts } from './heap-sos-umdh-transcripts.js';

function parse(file: string): ClrStackRecord {
  const record = parseClrStack(transcriptBody(file));
  assertValid('clrStack', record);
  return record;
}

function thread(record: ClrStackRecord, index: number): ClrStackThread {
  const found = record.threads[index];
  if (!found) throw new Error(`no thread #${index}`);
  return found;
}

describe('parseClrStack (!clrstack)', () => {
  it('reads -all: headers without (N), a first thread whose header the author elided', () => {
    const record = parse('clrstack/dotnet-dump-clrstack-all-linux-elided.txt');
    expect(record.threads.map((t) => t.osThreadId)).to.deep.equal([
      null,
      '0x1dc82',
      '0x1dc83',
      '0x1dc84',
      '0x1dc85',
      '0x1dc86',
      '0x1dc87',
      '0x1dc88',
    ]);
    const t = thread(record, 1);
    expect(t.threadIndex).to.equal(undefined);
    expect(t.frames).to.have.length(7);
    expect(t.frames[2]).to.deep.equal({
      childSp: '0x7f2ae2fb47d0',
      ip: '0x7f305abc6360',
      callSite:
        '[HelperMethodFrame_1OBJ: 00007f2ae2fb47d0] System.Threading.Monitor.ReliableEnter(System.Object, Boolean ByRef)',
      frameType: 'HelperMethodFrame_1OBJ',
      frameAddress: '0x7f2ae2fb47d0',
    });
    expect(t.frames[6]?.frameType).to.equal('DebuggerU2MCatchHandlerFrame');
    // Three `  ...` lines before and three `...` lines after, all the author's.
    expect(record.warnings).to.have.length(6);
  });

  it('reads two clrstack outputs of one dotnet-dump session with `(N)` thread numbers', () => {
    const record = parse('clrstack/dotnet-dump-setthread-clrstack-two-threads-linux.txt');
    expect(record.threads.map((t) => [t.osThreadId, t.threadIndex, t.frames.length])).to.deep.equal(
      [
        ['0x1dc1d', 20, 10],
        ['0x1dc1e', 21, 9],
      ],
    );
    const frames = thread(record, 0).frames;
    expect(frames[2]?.callSite).to.equal(
      '[HelperMethodFrame_1OBJ: 00007f2b862b9760] System.Threading.Monitor.Enter(System.Object)',
    );
    expect(frames[3]).to.deep.equal({
      childSp: '0x7f2b862b98b0',
      ip: '0x7f2fe392a9e5',
      callSite: 'testwebapi.Controllers.DiagScenarioController.DeadlockFunc()',
      source: '/home/marioh/webapi/Controllers/diagscenario.cs @ 57',
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the .NET Core 3.1 x64 `Child SP IP Call Site` layout', () => {
    const record = parse('clrstack/eddynaka-netcore31-x64-child-sp-ip.txt');
    const t = thread(record, 0);
    expect(t.osThreadId).to.equal('0x23f0');
    expect(t.threadIndex).to.equal(0);
    expect(t.frames).to.have.length(2);
    expect(t.frames[0]?.frameType).to.equal('HelperMethodFrame');
    expect(t.frames[1]).to.deep.equal({
      childSp: '0xf3a777e2e0',
      ip: '0x7ffb3b0a552f',
      callSite: 'CrashingApplication.Program.Main(System.String[])',
      source: 'C:\\Microsoft\\debugging\\crashing-application\\netcore\\Program.cs @ 14',
    });
  });

  it('reads the .NET Framework x86 layout with a [GCFrame] at the bottom', () => {
    const record = parse('clrstack/eddynaka-netfx48-x86-child-sp-ip.txt');
    const t = thread(record, 0);
    expect(t.osThreadId).to.equal('0x4dd4');
    expect(t.frames).to.have.length(3);
    expect(t.frames[1]?.childSp).to.equal('0xaff1f4');
    expect(t.frames[2]).to.deep.equal({
      childSp: '0xaff368',
      ip: '0x6d65f036',
      callSite: '[GCFrame: 00aff368]',
      frameType: 'GCFrame',
      frameAddress: '0xaff368',
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads a deadlocked thread: its third frame is Monitor.Wait with a BCL source path', () => {
    const record = parse('clrstack/eddynaka-netfx48-x86-deadlock-helpermethodframe-1obj.txt');
    const t = thread(record, 0);
    expect(t.osThreadId).to.equal('0x20cc');
    expect(t.frames).to.have.length(11);
    expect(t.frames[2]).to.deep.equal({
      childSp: '0x6ff2e0',
      ip: '0x6c5442c8',
      callSite: 'System.Threading.Monitor.Wait(System.Object, Int32, Boolean)',
      source: 'f:\\dd\\ndp\\clr\\src\\BCL\\system\\threading\\monitor.cs @ 203',
    });
    expect(t.frames[9]).to.deep.equal({
      childSp: '0x6ff490',
      ip: '0xa10a67',
      callSite: 'DeadlockApplication.Program.Main(System.String[])',
    });
  });

  it('reports "Unable to walk the managed stack" as the error, with the HRESULT', () => {
    const record = parse('clrstack/net4-unable-to-walk-managed-stack.txt');
    expect(record.threads.map((t) => [t.osThreadId, t.threadIndex, t.frames])).to.deep.equal([
      ['0x1880', 0, []],
    ]);
    // The thread carries it too (`~*e !clrstack` prints one per thread).
    expect(record.threads[0]?.error).to.equal(record.error);
    expect(record.threads[0]?.errorCode).to.equal('0x80070057');
    expect(record.error).to.equal(
      'Unable to walk the managed stack. The current thread is likely not a managed thread. You can run !threads to get a list of managed threads in the process',
    );
    expect(record.errorCode).to.equal('0x80070057');
    expect(record.warnings).to.deep.equal([]);
  });

  it('keeps the frames before the author`s "<<< REMOVED FOR CLARITY >>>" cut', () => {
    const record = parse('clrstack/net4-x86-child-sp-ip-uri-removed-for-clarity.txt');
    const t = thread(record, 0);
    expect(t.osThreadId).to.equal('0xcd8');
    expect(t.frames.map((f) => f.callSite)).to.include(
      'System.Uri..ctor(System.String, System.UriKind)',
    );
    expect(t.frames).to.have.length(7);
    expect(record.warnings).to.deep.equal([
      'unrecognised line: ...',
      'unrecognised line: <<< REMOVED FOR CLARITY >>>',
    ]);
  });

  it('reads -a PARAMETERS/LOCALS and joins the row a checksum warning cut in two', () => {
    const record = parse('clrstack/netfx4-x64-win10-1511-clrstack-a-inline-warning.txt');
    const t = thread(record, 0);
    expect(t.osThreadId).to.equal('0x1dc4');
    expect(t.frames).to.have.length(6);
    expect(t.frames[0]?.frameType).to.equal('InlinedCallFrame');
    expect(t.frames[2]?.parameters).to.deep.equal(Array(4).fill({ value: null }));
    const readKey = t.frames[3];
    expect(readKey?.callSite).to.equal('System.Console.ReadKey(Boolean)');
    expect(readKey?.parameters).to.deep.equal([
      { name: 'intercept', location: '0x3a9acfef08', value: '0x0000000000000000' },
    ]);
    expect(readKey?.locals).to.have.length(9);
    expect(readKey?.locals?.[5]).to.deep.equal({
      location: '0x3a9acfee40',
      value: '0x000001963d847c98',
    });
    const main = t.frames[4];
    expect(main).to.include({
      childSp: '0x3a9acfef00',
      ip: '0x7ffce4f7063c',
      callSite: 'MySimpleConApp.Program.Main(System.String[])',
      source: 'C:\\project\\160516_DotNetDebugging\\MySimpleConApp\\Program.cs @ 35',
    });
    expect(main?.parameters).to.deep.equal([
      { name: 'args', location: '0x3a9acfefd0', value: '0x000001963d8443f8' },
    ]);
    expect(main?.locals).to.have.length(6);
    expect(t.frames[5]?.frameType).to.equal('GCFrame');
    expect(record.noise).to.deep.equal([
      '*** WARNING: Unable to verify checksum for MySimpleConApp.exe',
    ]);
    expect(record.warnings).to.deep.equal([]);
  });

  describe('-f: native and managed frames in one list, helper frames kept', () => {
    /** The reply to one command of a recorded session (between its prompt line and the next). */
    function sessionReply(file: string, command: string): ClrStackRecord {
      const section = splitLog(transcriptBody(file)).sections.find((s) => s.command === command);
      if (section === undefined) throw new Error(`no ${command} in ${file}`);
      const record = parseClrStack(section.output);
      assertValid('clrStack', record);
      return record;
    }
    const SESSION = 'dbgeng/clrstack-f-attach-sessions-sos.txt';

    it('real engine: ntdll, kernelbase and coreclr frames between the managed ones, in order', () => {
      const record = sessionReply(SESSION, '!clrstack -f');
      expect(record.warnings).to.deep.equal([]);
      const frames = thread(record, 0).frames;
      expect(frames[0]).to.deep.equal({
        childSp: '0x19e8d8',
        ip: '0x17000d664',
        callSite: 'ntdll!NtDelayExecution + 20',
        module: 'ntdll',
        offset: 20,
      });
      // Native with no symbol: `module + offset`.
      expect(frames.map((f) => f.module)).to.include.members(['kernelbase', 'coreclr']);
      // The helper frame has no IP column and keeps its method.
      const helper = frames.find((f) => f.frameType === 'InlinedCallFrame');
      expect(helper).to.deep.equal({
        childSp: '0x19e9d8',
        callSite:
          '[InlinedCallFrame: 000000000019e9d8] System.Private.CoreLib.dll!System.Threading.Thread.SleepInternal(Int32)',
        frameType: 'InlinedCallFrame',
        frameAddress: '0x19e9d8',
      });
      // SOS printed a negative offset for the managed Sleep frame: kept as printed.
      expect(frames.find((f) => f.offset === -9521)?.callSite).to.match(/Thread\.Sleep\(Int32\)/);
      // The stack words the engine walked through under Wine are rows without a call site.
      expect(frames.find((f) => f.childSp === '0x19e9b8')).to.deep.equal({
        childSp: '0x19e9b8',
        ip: '0x1d4c0',
        callSite: '',
      });
      // Native, then managed, then native again: the order of the stack.
      const kinds = frames
        .filter((f) => f.module !== undefined)
        .map((f) => (f.module?.endsWith('.dll') === true ? 'managed' : 'native'));
      expect(kinds.indexOf('managed')).to.be.greaterThan(kinds.indexOf('native'));
      expect(frames[frames.length - 1]?.callSite).to.equal(
        'cdbh-dotnet.dll!CdbHarness.Targets.Program.Main(System.String[]) + 516',
      );
      expect(record.hostingNotices).to.deep.equal([
        'SOS_HOSTING: Failed to find runtime directory',
        'SOS_HOSTING: ICLRRuntimeInfo::GetInterface failed 80131700',
      ]);
    });

    it('real engine, ~*e: one thread per header, the non-managed ones with their own error', () => {
      const record = sessionReply(SESSION, '~*e !clrstack -f');
      expect(record.warnings).to.deep.equal([]);
      expect(record.threads.map((t) => [t.osThreadId, t.frames.length > 0])).to.deep.equal([
        ['0x24', true],
        ['0x104', false],
        ['0x108', false],
        ['0x10c', true],
        ['0x110', true],
        ['0x118', true],
      ]);
      expect(thread(record, 1).error).to.match(/^Unable to walk the managed stack\./);
      expect(thread(record, 1).errorCode).to.equal('0x80070057');
      expect(thread(record, 3).error).to.equal(undefined);
      // A helper frame with nothing after it (the thread's CLR entry).
      expect(
        thread(record, 3).frames.find((f) => f.frameType === 'DebuggerU2MCatchHandlerFrame'),
      ).to.deep.equal({
        childSp: '0x294fd10',
        callSite: '[DebuggerU2MCatchHandlerFrame: 000000000294fd10]',
        frameType: 'DebuggerU2MCatchHandlerFrame',
        frameAddress: '0x294fd10',
      });
      expect(thread(record, 3).frames.at(-1)?.callSite).to.equal('ntdll!RtlUserThreadStart + 136');
    });

    it('dotnet-dump on Linux: helper rows with a blank IP, module!method + offset rows', () => {
      const one = parse('dotnet-dump/clrstack-f-sessions-linux-net10.txt');
      expect(one.warnings).to.deep.equal([]);
      expect(thread(one, 0).frames.map((f) => f.frameType ?? f.module)).to.deep.equal([
        'InlinedCallFrame',
        'InlinedCallFrame',
        'System.Private.CoreLib.dll',
        'cdbh-dotnet.dll',
        'cdbh-dotnet.dll',
      ]);
      expect(thread(one, 0).frames[3]).to.include({
        offset: 1323,
        source: '/work/wt/i18-heaptrend/test/targets/dotnet/Sessions.cs @ 66',
      });
      const all = parse('dotnet-dump/clrstack-f-all-sessions-linux-net10.txt');
      expect(all.warnings).to.deep.equal([]);
      expect(all.threads).to.have.length(4);
      expect(thread(all, 1).frames).to.deep.equal([
        {
          childSp: '0x7fbf0a7fbdf0',
          callSite: '[DebuggerU2MCatchHandlerFrame: 00007fbf0a7fbdf0]',
          frameType: 'DebuggerU2MCatchHandlerFrame',
          frameAddress: '0x7fbf0a7fbdf0',
        },
      ]);
    });
  });

  it('has a test for every clrstack transcript', () => {
    expect(untestedTranscripts(import.meta.url, 'clrstack')).to.deep.equal([]);
  });
});
