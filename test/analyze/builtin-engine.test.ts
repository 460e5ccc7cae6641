import { expect } from 'chai';
import { join } from 'node:path';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { validate } from '../../src/report/schemas.js';
import { wineRigReady } from '../helpers/wine.js';
import {
  addCorruptInputs,
  byName,
  dumpOf,
  folderWith,
  readNdjson,
  readSummary,
  tempDir,
} from './fixtures.js';

describe('analyze --engine builtin (real winedbg dumps, no debugger)', function () {
  this.timeout(60_000);
  let input: string;
  let out: string;

  before(async function () {
    this.timeout(120_000);
    input = await folderWith({
      'av-write-1.dmp': await dumpOf('av-write', 1),
      'av-write-2.dmp': await dumpOf('av-write', 2),
      'clr-raise.dmp': await dumpOf('clr-raise'),
      'cpp-throw.dmp': await dumpOf('cpp-throw'),
      'attach-break.dmp': await dumpOf('attach-break'),
    });
    await addCorruptInputs(input, join(input, 'av-write-1.dmp'));
    out = tempDir('builtin');
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin', jobs: 3 });
  });

  it('writes one schema-valid record per file, bad files included', () => {
    const records = readNdjson(join(out, 'records.ndjson'));
    expect(records).to.have.length(9);
    for (const record of records) {
      const check = validate('analyzeRecord', record);
      expect(check.errors, record.file).to.deep.equal([]);
    }
    expect(validate('analyzeSummary', readSummary(out)).errors).to.deep.equal([]);
  });

  it('reads the exception, the faulting module and the process from the dump itself', () => {
    const records = readNdjson(join(out, 'records.ndjson'));
    const av = byName(records, 'av-write-1.dmp');
    expect(av.ok).to.equal(true);
    expect(av.engine).to.equal('builtin');
    expect(av.exception).to.include({
      code: '0xc0000005',
      accessType: 'write',
      accessAddress: '0x10',
    });
    expect(av.modules.faulting?.name).to.equal('av.exe');
    expect(av.frames[0]).to.include({ module: 'av' });
    expect(av.process.name).to.equal('av.exe');
    expect(av.notAvailable).to.include.members(['clrException', 'heapSummary', 'analyze']);
    expect(byName(records, 'clr-raise.dmp').exception?.code).to.equal('0xe0434352');
    expect(byName(records, 'cpp-throw.dmp').exception?.code).to.equal('0x20474343');
    const attach = byName(records, 'attach-break.dmp');
    expect(attach.exception?.code).to.equal('0x80000003');
    expect(attach.modules.faulting?.name).to.equal('ntdll.dll');
  });

  it('puts two dumps of the same crash in one bucket and different crashes in others', () => {
    const summary = readSummary(out);
    const records = readNdjson(join(out, 'records.ndjson'));
    const same = byName(records, 'av-write-1.dmp').bucket?.id;
    expect(byName(records, 'av-write-2.dmp').bucket?.id).to.equal(same);
    expect(byName(records, 'clr-raise.dmp').bucket?.id).to.not.equal(same);
    const top = summary.buckets[0];
    expect(top?.count).to.equal(2);
    expect(top?.id).to.equal(same);
    expect(top?.files.map((f) => f.split('/').pop())).to.deep.equal([
      'av-write-1.dmp',
      'av-write-2.dmp',
    ]);
    expect(top?.representative).to.equal(top?.files[0]);
    expect(top?.firstSeen).to.match(/^\d{4}-\d\d-\d\dT/);
    expect(top?.moduleVersions[0]).to.include({ module: 'av.exe', count: 2 });
    expect(summary.buckets).to.have.length(4);
    expect(summary.topException).to.include({ code: '0xc0000005', count: 2 });
  });

  it('reports empty, truncated, random and text files as failed, never fatal', () => {
    const summary = readSummary(out);
    expect(summary).to.include({ dumps: 9, ok: 5, failed: 4 });
    const failed = summary.failures.map((f) => f.file.split('/').pop()).sort();
    expect(failed).to.deep.equal(['empty.dmp', 'notes.dmp', 'random.dmp', 'truncated.dmp']);
    for (const f of summary.failures) expect(f.code).to.equal('BAD_DUMP');
    const records = readNdjson(join(out, 'records.ndjson'));
    expect(byName(records, 'empty.dmp')).to.include({ ok: false, size: 0, bucket: null });
  });

  it('walks out of system code to the program, the same way for every run of a crash', async function () {
    if (!wineRigReady()) this.skip(); // needs second runs of these crashes, written by the rig
    const dir = await folderWith({
      'clr-1.dmp': await dumpOf('clr-raise', 1),
      'clr-2.dmp': await dumpOf('clr-raise', 2),
      'cpp-1.dmp': await dumpOf('cpp-throw', 1),
      'cpp-2.dmp': await dumpOf('cpp-throw', 2),
    });
    const scanOut = tempDir('scan');
    await analyzeDumps({ inputs: [dir], outDir: scanOut, engine: 'builtin' });
    const records = readNdjson(join(scanOut, 'records.ndjson'));
    const clr = byName(records, 'clr-1.dmp');
    // Frame 0 is RaiseException's address in kernelbase; the callers come from unwind data where
    // an image was found (raise.exe at its recorded Z:\ path) and from a scan elsewhere.
    expect(clr.frames[0]).to.include({ module: 'kernelbase', trust: 'exception' });
    // The registers at the exception come with the record (.ecxr), RIP at frame 0's address.
    expect(clr.exception?.registers?.['rip']).to.equal(clr.frames[0]?.address);
    const callers = clr.frames.slice(1);
    expect(callers.map((f) => f.trust)).to.satisfy((trusts: string[]) =>
      trusts.every((t) => ['cfi', 'scan-call', 'scan'].includes(t)),
    );
    // Every frame in raise.exe (whose image is on disk) is verified: by unwind data or a call.
    const ours = callers.filter((f) => f.module === 'raise');
    expect(ours.length).to.be.at.least(2);
    expect(ours.every((f) => f.trust === 'cfi' || f.trust === 'scan-call')).to.equal(true);
    expect(clr.bucket?.signature).to.match(/^0xe0434352 \| raise\+0x/);
    expect(byName(records, 'clr-2.dmp').bucket?.id).to.equal(clr.bucket?.id);
    const cpp = byName(records, 'cpp-1.dmp');
    expect(cpp.bucket?.signature).to.match(/^0x20474343 \| thrower\+0x/);
    expect(byName(records, 'cpp-2.dmp').bucket?.id).to.equal(cpp.bucket?.id);
  });
});
