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

describe('analyze signatures (cdbh-sig-2)', () => {
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

  it('gives a custom skip list its own algorithm id, so old and new buckets never mix', () => {
    const custom = createSigner({ skipModules: parseSkipModules('ntdll.dll\nraise # ours\n') });
    expect(custom.algorithm).to.match(/^cdbh-sig-2\+skip\.[0-9a-f]{8}$/);
    const bucket = custom.sign(crash({ code: '0xe0434352', name: 'CLR' }, RAISE_STACK));
    expect(bucket.signature).to.equal('0xe0434352 | kernelbase!RaiseException');
    const same = createSigner({ skipModules: parseSkipModules('raise\n$$ comment\nNTDLL\n') });
    expect(same.algorithm).to.equal(custom.algorithm);
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

  it('keeps scanned frames (modules whose image was not found) next to unwound ones', () => {
    // The program's image is missing, the system DLL's was found: the program's frames can only
    // come from a scan, and they are what tells this crash from others.
    const frames: AnalyzeFrame[] = [
      { module: 'av', offset: '0x154a', trust: 'exception' },
      { module: 'av', offset: '0x16bc', trust: 'scan' },
      { module: 'kernel32', function: 'BaseThreadInitThunk', offset: '0x9', trust: 'cfi' },
      { module: 'av', offset: '0x13ae', trust: 'scan' },
    ];
    expect(signer.sign(crash(AV_WRITE, frames)).signature).to.equal(
      '0xc0000005 write | av+0x154a | av+0x16bc | av+0x13ae',
    );
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
