import { expect } from 'chai';
import { createSigner, SIGNATURE_ALGORITHM } from '../../src/report/analyze/signature.js';
import { DumpPolicy } from '../../src/workflows/watch/dump-policy.js';
import {
  exceptionSignature,
  frameOf,
  SIGNATURE_ALGORITHM as WATCH_ALGORITHM,
} from '../../src/workflows/watch/signature.js';

describe('watch signatures: the analyze grammar (cdbh-sig-3)', () => {
  // winedbg `bt` at a raise.exe RaiseException stop, as parseStack renders it (captured on this rig)
  const winedbgFrames = [
    'kernelbase!RaiseException+0x46',
    'raise!raise_one+0x59',
    'raise!main+0x1aa',
    'raise+0x13ae',
    'raise+0x14e6',
    'kernel32!BaseThreadInitThunk+0x9',
    'ntdll!__wine_pop_frame',
    'ntdll!RtlUserThreadStart+0x88',
  ];

  it('writes the signature analyze gives the same exception and frames, under its algorithm id', () => {
    const live = exceptionSignature({ code: '0xe0434352', frames: winedbgFrames });
    expect(live).to.equal('0xe0434352 | raise!raise_one | raise!main | raise+0x13ae');
    const analyzed = createSigner().sign({
      exception: { code: '0xe0434352', name: 'CLR exception' },
      frames: winedbgFrames.map(frameOf),
    });
    expect(live).to.equal(analyzed.signature);
    expect(WATCH_ALGORITHM).to.equal(SIGNATURE_ALGORITHM);
  });

  it('reads k frames: named, module offsets, and addresses nothing is known of', () => {
    expect(frameOf('KERNELBASE!RaiseException+0x46')).to.deep.equal({
      module: 'KERNELBASE',
      function: 'RaiseException',
      offset: '0x46',
    });
    expect(frameOf('raise+0x13ae')).to.deep.equal({ module: 'raise', offset: '0x13ae' });
    expect(frameOf('0x00007ffa12345678')).to.deep.equal({ address: '0x00007ffa12345678' });
    expect(frameOf('00007ffa`12345678')).to.deep.equal({ address: '00007ffa`12345678' });
  });

  it('groups CLR exceptions by type and managed stack, two offsets in one function as one', () => {
    const sign = (site: string) =>
      exceptionSignature({
        code: '0xe0434352',
        clrType: 'System.IO.IOException',
        frames: ['System.Runtime.EH.DispatchEx(System.Runtime.StackFrameIterator ByRef)', site],
      });
    expect(sign('App.Program.Main()+0x10')).to.equal(sign('App.Program.Main()+0x22'));
    expect(sign('App.Program.Main()+0x10')).to.equal(
      'clr:System.IO.IOException | App.Program.Main()',
    );
  });

  it('tells an access violation read from a write by its first parameter', () => {
    const frames = ['av!crash_here+0x1a'];
    expect(
      exceptionSignature({ code: '0xc0000005', frames, parameters: ['0x1', '0x10'] }),
    ).to.equal('0xc0000005 write | av!crash_here');
    expect(
      exceptionSignature({ code: '0xc0000005', frames, parameters: ['0x0', '0x10'] }),
    ).to.equal('0xc0000005 read | av!crash_here');
  });

  it('still tells buckets apart when every frame is machinery, and works with no frames', () => {
    expect(
      exceptionSignature({
        code: '0x80000003',
        frames: ['ntdll!KiUserExceptionDispatcher+0x2e', 'ntdll!NtWaitForSingleObject+0x14'],
      }),
    ).to.equal('0x80000003 | ntdll!KiUserExceptionDispatcher | ntdll!NtWaitForSingleObject');
    expect(exceptionSignature({ code: null, frames: [] })).to.equal('unknown | <no frames>');
  });
});

describe('dump policy: --skip, --once-per-bucket, --max-dumps', () => {
  it('skips the first N matches, then dumps up to the quota', () => {
    const policy = new DumpPolicy({ skip: 2, maxDumps: 2 });
    const verdicts = ['a', 'a', 'a', 'a', 'a', 'a'].map((s) => {
      const v = policy.decide(s);
      if (v.dump) policy.recordDump(s);
      return v.dump ? 'dump' : v.reason;
    });
    expect(verdicts).to.deep.equal(['skip', 'skip', 'dump', 'dump', 'max-dumps', 'max-dumps']);
    expect(policy.quotaReached).to.equal(true);
  });

  it('dumps once per signature; a failed write neither fills the bucket nor the quota', () => {
    const policy = new DumpPolicy({ oncePerBucket: true, maxDumps: 3 });
    expect(policy.decide('x')).to.deep.equal({ dump: true }); // write fails: not recorded
    expect(policy.decide('x')).to.deep.equal({ dump: true });
    policy.recordDump('x');
    expect(policy.decide('x')).to.deep.equal({ dump: false, reason: 'bucket-seen' });
    expect(policy.decide('y')).to.deep.equal({ dump: true });
    expect(policy.dumpsWritten).to.equal(1);
  });
});
