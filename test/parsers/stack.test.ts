import { expect } from 'chai';
import { parseStack } from '../../src/parsers/stack.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript, winedbgFixture } from './transcripts.js';

function stackOf(name: string) {
  const record = parseStack(transcript(name).body);
  assertValid('stack', record);
  return record;
}

describe('stack (k family)', () => {
  it('reads numbered x64 frames without a header and splits the call site', () => {
    const { threads } = stackOf('misc/k-x64-notepad-no-header.txt');
    expect(threads[0]?.frames[1]).to.deep.equal({
      callSite: 'notepad!__scrt_common_main_seh+0x106',
      frameNumber: 1,
      childSp: '0xc82647f710',
      returnAddress: '0x7ff807237034',
      module: 'notepad',
      function: '__scrt_common_main_seh',
      offset: '0x106',
    });
  });

  it('keeps raw-address frames of a corrupted x86 stack and reports the IP warning', () => {
    const record = stackOf('misc/k-x86-corrupted-stack-frame-ip-warning.txt');
    expect(record.threads[0]?.frames[0]).to.include({ callSite: '0xbad4', childSp: '0x29fe70' });
    expect(record.warnings[0]).to.match(/Frame IP not in any known module/);
  });

  it('reads kb argument columns and source lines', () => {
    const frame = stackOf('misc/kb-x86-pageheap-full-ntsd.txt').threads[0]?.frames[0];
    expect(frame?.args).to.deep.equal(['0x0', '0x1', '0x6ffc0']);
    expect(frame?.source).to.equal(
      'd:\\nttest\\base\\testsrc\\kernel\\rtl\\pageheap\\pheap-buggy.cxx @ 184',
    );
  });

  it('reads kc call-site-only rows, including the ?? ::FNODOBFM frame', () => {
    const frames = stackOf('misc/kc-x64-call-site-only.txt').threads[0]?.frames ?? [];
    expect(frames.map((f) => f.callSite)).to.deep.equal([
      'ntdll!LdrpDoDebuggerBreak',
      'ntdll!LdrpInitializeProcess',
      "ntdll! ?? ::FNODOBFM::`string'",
      'ntdll!LdrInitializeThunk',
    ]);
  });

  it('marks (Inline Function) rows and reads hex frame numbers past 9', () => {
    const frames = stackOf('misc/tilde-hash-kn50-x64-fuzzmanager-win10.txt').threads[0]?.frames;
    expect(frames?.[1]).to.include({ frameNumber: 1, inline: true });
    expect(frames?.[1]?.childSp).to.equal(undefined);
    expect(frames?.find((f) => f.frameNumber === 0x1a)?.function).to.equal(
      'js::NewObjectWithGivenTaggedProto',
    );
  });

  it('reads ~* kv thread headers and frames through DBGHELP noise, FPO annotations removed', () => {
    const record = stackOf('misc/tilde-star-kv-x86-single-thread-dbghelp-noise.txt');
    expect(record.threads).to.have.length(1);
    const thread = record.threads[0];
    expect(thread).to.include({
      threadIndex: 0,
      processId: '0x1944',
      threadId: '0x2ac8',
      teb: '0xc06000',
      current: true,
    });
    expect(thread?.frames).to.have.length(19);
    expect(thread?.frames[0]?.callSite).to.equal('ntdll!KiFastSystemCallRet');
    expect(thread?.frames[3]).to.include({ module: 'vssdk_full', offset: '0x306c' });
  });

  it('keeps every thread of an elided ~*k listing', () => {
    const { threads } = stackOf('misc/tilde-star-k-elided.txt');
    expect(threads.map((t) => t.threadId)).to.deep.equal(['0x574', '0x590', '0x598', '0x760']);
    expect(threads[2]?.frames[0]?.callSite).to.equal('COMCTL32!_chkstk+0x25');
  });

  it('reads x64 kv rows with colon-separated args', () => {
    const body = transcript('misc/exr-minus1-initial-breakpoint-x64-then-kv.txt').body;
    const kv = body.slice(body.indexOf('0:000> kv'));
    const frames = parseStack(kv).threads[0]?.frames ?? [];
    expect(frames).to.have.length(4);
    expect(frames[2]).to.include({ callSite: "ntdll! ?? ::FNODOBFM::`string'+0x29220" });
    expect(frames[0]?.args).to.have.length(4);
  });
});

describe('stack (winedbg bt)', () => {
  it('reads a real bt: cdb-shaped call sites, source, ip and frame address', () => {
    const body = winedbgFixture('av-unhandled-bt-info-share-minidump.txt').body;
    const bt = body.slice(body.indexOf('Wine-dbg>bt'), body.indexOf('Wine-dbg>info share'));
    const frames = parseStack(bt).threads[0]?.frames ?? [];
    expect(frames).to.have.length(7);
    expect(frames[0]).to.deep.equal({
      frameNumber: 0,
      callSite: 'av!crash_here+0x1a',
      ip: '0x14000154a',
      framePointer: '0xc812e0',
      module: 'av',
      source: 'Z:\\work\\main\\test\\targets\\av.c:9',
      function: 'crash_here',
      offset: '0x1a',
    });
    expect(frames[2]).to.include({ callSite: 'av+0x13ae', module: 'av', offset: '0x13ae' });
  });
});
