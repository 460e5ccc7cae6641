import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type {
  AnalyzeDumpRecord,
  AnalyzeFrame,
} from '../../../src/report/analyze/analyze-record.js';
import {
  createSigner,
  frameToken,
  SIGNATURE_ALGORITHM,
} from '../../../src/report/analyze/signature.js';
import { normalizeModuleName, parseSkipModules } from '../../../src/report/analyze/skip-modules.js';
import { commonName } from '../../../src/report/analyze/summary.js';

type Signable = Pick<AnalyzeDumpRecord, 'exception' | 'frames' | 'clrException'>;

const AV_WRITE: Signable['exception'] = {
  code: '0xc0000005',
  name: 'Access violation writing 0x10',
  accessType: 'write',
};

function crash(exception: Signable['exception'], frames: AnalyzeFrame[]): Signable {
  return { exception, frames };
}

const RAISE_STACK: AnalyzeFrame[] = [
  { module: 'KERNELBASE', function: 'RaiseException', offset: '0x46' },
  { module: 'raise', function: 'raise_one', offset: '0x59' },
  { module: 'raise', function: 'main', offset: '0x1aa' },
  { module: 'raise', offset: '0x13ae' },
  { module: 'raise', offset: '0x14e6' },
];

describe('analyze signatures (cdbh-sig-3)', () => {
  const signer = createSigner();

  it('gives each signature the hash of its text, also once its remembered ids were forgotten', () => {
    const fresh = createSigner();
    const first = fresh.sign(crash(AV_WRITE, RAISE_STACK));
    const idOf = (text: string) =>
      createHash('sha256').update(`${SIGNATURE_ALGORITHM}\n${text}`).digest('hex').slice(0, 16);
    expect(first.id).to.equal(idOf(first.signature));
    // More distinct signatures than the signer keeps ids for (4,096), then the first again.
    for (let i = 0; i < 5000; i++) {
      const other = fresh.sign(crash(AV_WRITE, [{ module: 'app', offset: `0x${i.toString(16)}` }]));
      if (i % 997 === 0) expect(other.id).to.equal(idOf(other.signature));
    }
    expect(fresh.sign(crash(AV_WRITE, RAISE_STACK))).to.deep.equal(first);
  });

  it('normalizes module names the same way before and after it has seen thousands of them', () => {
    const cases: [string, string][] = [
      ['KERNELBASE.dll', 'kernelbase'],
      ['C:\\Windows\\System32\\ntdll.dll', 'ntdll'],
      ['/opt/app/Raise.EXE', 'raise'],
      ['mscorlib.ni.dll', 'mscorlib.ni'],
    ];
    for (const [name, normal] of cases) expect(normalizeModuleName(name)).to.equal(normal);
    for (let i = 0; i < 5000; i++) expect(normalizeModuleName(`Mod${i}.DLL`)).to.equal(`mod${i}`);
    for (const [name, normal] of cases) expect(normalizeModuleName(name)).to.equal(normal);
  });

  it('names the algorithm and gives a 16-hex bucket id', () => {
    const bucket = signer.sign(crash(AV_WRITE, [{ module: 'av', function: 'crash_here' }]));
    expect(bucket.algorithm).to.equal(SIGNATURE_ALGORITHM);
    expect(bucket.id).to.match(/^[0-9a-f]{16}$/);
  });

  it('puts two dumps of the same crash in one bucket, whatever the offsets and addresses', () => {
    const a = signer.sign(
      crash(AV_WRITE, [{ module: 'av', function: 'crash_here', offset: '0x1a', address: '0x1' }]),
    );
    const b = signer.sign(
      crash({ ...AV_WRITE, address: '0x2' }, [
        { module: 'av.exe', function: 'crash_here', offset: '0x1a', address: '0x99' },
      ]),
    );
    expect(a.id).to.equal(b.id);
  });

  it('tells an AV read from an AV write at the same place', () => {
    const frames = [{ module: 'av', function: 'crash_here' }];
    const write = signer.sign(crash(AV_WRITE, frames));
    const read = signer.sign(crash({ ...AV_WRITE, accessType: 'read' }, frames));
    expect(write.id).to.not.equal(read.id);
    expect(read.signature).to.equal('0xc0000005 read | av!crash_here');
  });

  it('looks through system and runtime frames to the first three of the program', () => {
    const bucket = signer.sign(crash({ code: '0xe0434352', name: 'CLR' }, RAISE_STACK));
    expect(bucket.signature).to.equal('0xe0434352 | raise!raise_one | raise!main | raise+0x13ae');
  });

  it('keeps system frames when there is nothing else, so system crashes still differ by place', () => {
    const bucket = signer.sign(
      crash({ code: '0x80000003', name: 'Breakpoint' }, [
        { module: 'ntdll', offset: '0x555f5' },
        { module: 'ntdll', function: 'DbgUiRemoteBreakin' },
      ]),
    );
    expect(bucket.signature).to.equal('0x80000003 | ntdll+0x555f5 | ntdll!DbgUiRemoteBreakin');
  });

  it('groups managed exceptions by type and managed stack, not by the runtime frames under them', () => {
    const clr = (type: string): Signable => ({
      exception: { code: '0xe0434352', name: 'CLR exception' },
      frames: RAISE_STACK,
      clrException: {
        noException: false,
        warnings: [],
        exceptions: [
          {
            address: '0x1',
            type,
            message: 'boom',
            innerException: null,
            hresult: '0x80131500',
            stackTraceString: null,
            stack: [{ function: 'App.Program.Main(System.String[])+0x2c' }],
          },
        ],
      },
    });
    const a = signer.sign(clr('System.NullReferenceException'));
    const b = signer.sign(clr('System.InvalidOperationException'));
    expect(a.signature).to.equal(
      'clr:System.NullReferenceException | App.Program.Main(System.String[])',
    );
    expect(a.id).to.not.equal(b.id);
  });

  it('says so when a dump has no exception or no frames', () => {
    expect(signer.sign(crash(null, [])).signature).to.equal('no-exception | <no frames>');
  });

  it('adds a skip list to the defaults under an algorithm id of its own, so old and new buckets never mix', () => {
    const custom = createSigner({ skipModules: parseSkipModules('ntdll.dll\nraise # ours\n') });
    expect(custom.algorithm).to.match(/^cdbh-sig-3\+lists\.[0-9a-f]{8}$/);
    // kernelbase stays skipped (added, not replaced); with raise skipped too, nothing is left
    // but the first frames as they are.
    const bucket = custom.sign(crash({ code: '0xe0434352', name: 'CLR' }, RAISE_STACK));
    expect(bucket.signature).to.equal(
      '0xe0434352 | kernelbase!RaiseException | raise!raise_one | raise!main',
    );
    const same = createSigner({ skipModules: parseSkipModules('raise\n$$ comment\nNTDLL\n') });
    expect(same.algorithm).to.equal(custom.algorithm);
    // `!name` takes a default out: kernelbase's frame is then the program's first.
    const without = createSigner({ skipModules: parseSkipModules('!KERNELBASE.dll\n') });
    expect(
      without.sign(crash({ code: '0xe0434352', name: 'CLR' }, RAISE_STACK)).signature,
    ).to.equal('0xe0434352 | raise!raise_one | raise!main | raise+0x13ae');
  });

  it('writes frames as module!function, module+offset, or ? when nothing is known', () => {
    expect(frameToken({ module: 'C:\\x\\App.EXE', function: 'f+0x10' })).to.equal('app!f');
    expect(frameToken({ module: 'av', offset: '0x154a' })).to.equal('av+0x154a');
    expect(frameToken({ address: '0x10' })).to.equal('?');
  });

  it('summarises exception names by their shared words', () => {
    expect(commonName('Access violation writing 0x10', 'Access violation writing 0x28')).to.equal(
      'Access violation writing',
    );
    expect(commonName('Breakpoint', 'Breakpoint')).to.equal('Breakpoint');
  });

  it('leaves scanned frames out when unwound ones give something, and marks them when nothing else does', () => {
    // getsentry/symbolic#1049: a scan's words differ with whatever the stack held, so they
    // split buckets of one crash; they are a last resort.
    const frames: AnalyzeFrame[] = [
      { module: 'av', offset: '0x154a', moduleOffset: '0x154a', trust: 'context' },
      { module: 'av', offset: '0x16bc', moduleOffset: '0x16bc', trust: 'scan' },
      { module: 'kernel32', function: 'BaseThreadInitThunk', offset: '0x9', trust: 'cfi' },
      { module: 'av', offset: '0x13ae', moduleOffset: '0x13ae', trust: 'scan-call' },
    ];
    expect(signer.sign(crash(AV_WRITE, frames)).signature).to.equal('0xc0000005 write | av+0x154a');
    // The crash inside kernelbase (skipped), the program's frames only from a scan.
    const thrown: AnalyzeFrame[] = [
      {
        module: 'KERNELBASE.dll',
        function: 'RaiseException',
        moduleOffset: '0x1f2a',
        trust: 'context',
      },
      { module: 'thrower.exe', moduleOffset: '0x1f200', offset: '0x1f200', trust: 'scan' },
      { module: 'thrower.exe', moduleOffset: '0xc4a4', offset: '0xc4a4', trust: 'scan' },
    ];
    expect(signer.sign(crash({ code: '0x20474343', name: 'C++' }, thrown)).signature).to.equal(
      '0x20474343 | ~thrower+0x1f200 | ~thrower+0xc4a4',
    );
  });

  it('has one algorithm whatever symbols were found: the text says which rendering it is', () => {
    // The walker's frames carry the module offset: with every signature frame named the text
    // is names, with one missing it is offsets for all, under the same algorithm id.
    const at = (moduleOffset: string, fn?: string): AnalyzeFrame => ({
      module: 'app.exe',
      ...(fn === undefined ? { offset: moduleOffset } : { function: fn, offset: '0x4' }),
      moduleOffset,
      trust: 'cfi',
    });
    const all = signer.sign(crash(AV_WRITE, [at('0x1010', 'f'), at('0x2020', 'g')]));
    const part = signer.sign(crash(AV_WRITE, [at('0x1010', 'f'), at('0x2020')]));
    const none = signer.sign(crash(AV_WRITE, [at('0x1010'), at('0x2020')]));
    expect(all.signature).to.equal('0xc0000005 write | app!f | app!g');
    expect(part.signature).to.equal('0xc0000005 write | app+0x1010 | app+0x2020');
    expect(part).to.deep.equal(none);
    expect(new Set([all.algorithm, part.algorithm, createSigner().algorithm])).to.deep.equal(
      new Set([SIGNATURE_ALGORITHM]),
    );
  });

  it("never puts a frame nothing is known of (cdb's ?) into a signature", () => {
    const frames: AnalyzeFrame[] = [
      { address: '0x0', trust: 'debugger' },
      { module: 'av', function: 'crash_here', offset: '0x1a', trust: 'debugger' },
      { address: '0x7ff612345678', trust: 'debugger' },
    ];
    expect(signer.sign(crash(AV_WRITE, frames)).signature).to.equal(
      '0xc0000005 write | av!crash_here',
    );
    expect(signer.sign(crash(AV_WRITE, [{ address: '0x0' }])).signature).to.equal(
      '0xc0000005 write | <no frames>',
    );
  });

  it('signs a debugger wake-up (0x80000007) as no exception, with the dumps taken on demand', () => {
    // cdb's noninvasive attach: `(24c.250): Wake debugger - code 80000007 (first chance)`
    // (test/fixtures/transcripts/dbgeng/dump-attach-noninvasive-ma.txt).
    const stack: AnalyzeFrame[] = [{ module: 'ntdll', function: 'ZwReadFile', offset: '0x14' }];
    const wake = signer.sign(crash({ code: '0x80000007', name: 'Wake debugger' }, stack));
    const onDemand = signer.sign(crash(null, stack));
    expect(wake.signature).to.equal('no-exception | ntdll!ZwReadFile');
    expect(wake.id).to.equal(onDemand.id);
  });

  it('looks through irrelevant functions, keeps prefix ones without counting, starts at a sentinel', () => {
    const mingw: AnalyzeFrame[] = [
      { module: 'thrower', function: '_Unwind_RaiseException', offset: '0x1' },
      { module: 'thrower', function: '__cxa_throw', offset: '0x2' },
      { module: 'thrower', function: 'memcpy', offset: '0x3' },
      { module: 'thrower', function: 'copy_block', offset: '0x4' },
      { module: 'thrower', function: 'run', offset: '0x5' },
      { module: 'thrower', function: 'main', offset: '0x6' },
      { module: 'thrower', function: 'mainCRTStartup', offset: '0x7' },
    ];
    const cpp = { code: '0x20474343', name: 'C++ exception' };
    expect(signer.sign(crash(cpp, mingw)).signature).to.equal(
      '0x20474343 | thrower!memcpy | thrower!copy_block | thrower!run | thrower!main',
    );
    const purecall: AnalyzeFrame[] = [
      { module: 'app', function: 'report_fault', offset: '0x1' },
      { module: 'app', function: '_purecall', offset: '0x2' },
      { module: 'app', function: 'Widget::draw', offset: '0x3' },
    ];
    expect(signer.sign(crash(AV_WRITE, purecall)).signature).to.equal(
      '0xc0000005 write | app!_purecall | app!Widget::draw',
    );
    // Patterns match whole names: the module raise.exe is not the prefix function `raise`.
    expect(
      signer.sign(crash(AV_WRITE, [{ module: 'raise', function: 'raise_one' }])).signature,
    ).to.equal('0xc0000005 write | raise!raise_one');
  });

  it('counts a recursion once, so its depth does not split a bucket', () => {
    const at = (offset: string): AnalyzeFrame => ({ module: 'chain', offset, trust: 'cfi' });
    const deep = (n: number) => [
      at('0x159b'),
      ...Array.from({ length: n }, () => at('0x1640')),
      at('0x1826'),
    ];
    const three = signer.sign(crash(AV_WRITE, deep(3)));
    const eight = signer.sign(crash(AV_WRITE, deep(8)));
    expect(three.signature).to.equal(
      '0xc0000005 write | chain+0x159b | chain+0x1640 | chain+0x1826',
    );
    expect(eight.id).to.equal(three.id);
  });
});
