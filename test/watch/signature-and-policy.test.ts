import { expect } from 'chai';
import { DumpPolicy } from '../../src/workflows/watch/dump-policy.js';
import { exceptionSignature, programFrames } from '../../src/workflows/watch/signature.js';

describe('watch signatures', () => {
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

  it('keeps the program frames and drops the raising machinery, offsets and symbol-less frames', () => {
    expect(programFrames(winedbgFrames)).to.deep.equal([
      'raise!raise_one',
      'raise!main',
      'kernel32!BaseThreadInitThunk',
    ]);
    expect(exceptionSignature({ code: '0xe0434352', frames: winedbgFrames })).to.equal(
      '0xe0434352 @ raise!raise_one < raise!main < kernel32!BaseThreadInitThunk',
    );
  });

  it('puts the CLR type into the signature, and two offsets in one function give one signature', () => {
    const a = exceptionSignature({
      code: '0xe0434352',
      clrType: 'System.IO.IOException',
      frames: ['App!A.B()+0x10'],
    });
    const b = exceptionSignature({
      code: '0xe0434352',
      clrType: 'System.IO.IOException',
      frames: ['App!A.B()+0x22'],
    });
    expect(a).to.equal(b).and.to.equal('0xe0434352 System.IO.IOException @ app!A.B()');
  });

  it('still tells buckets apart when every frame is machinery, and works with no frames', () => {
    expect(
      programFrames(['ntdll!KiUserExceptionDispatcher+0x2e', 'ntdll!NtWaitForSingleObject+0x14']),
    ).to.deep.equal(['ntdll!KiUserExceptionDispatcher', 'ntdll!NtWaitForSingleObject']);
    expect(exceptionSignature({ code: null, frames: [] })).to.equal('unknown');
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
