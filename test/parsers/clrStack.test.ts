import { expect } from 'chai';
import { parseClrStack } from '../../src/parsers/clr-stack.js';
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
    expect(record.threads).to.deep.equal([{ osThreadId: '0x1880', threadIndex: 0, frames: [] }]);
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

  it('has a test for every clrstack transcript', () => {
    expect(untestedTranscripts(import.meta.url, 'clrstack')).to.deep.equal([]);
  });
});
