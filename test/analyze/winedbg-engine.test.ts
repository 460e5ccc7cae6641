// End to end with a real debugger: winedbg (Wine 8) opens each real dump the rig wrote, runs
// dbgscripts/triage.winedbg.txt, and analyze turns its answers into records and buckets.
import { expect } from 'chai';
import { join } from 'node:path';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { validate } from '../../src/report/schemas.js';
import { wineEnv, wineRigReady } from '../helpers/wine.js';
import { byName, dumpOf, folderWith, readNdjson, readSummary, tempDir } from './fixtures.js';

describe('analyze --engine winedbg (real debugger, real dumps)', function () {
  this.timeout(120_000);
  let out: string;

  before(async function () {
    if (!wineRigReady()) this.skip();
    const input = await folderWith({
      'av-write-1.dmp': await dumpOf('av-write', 1),
      'av-write-2.dmp': await dumpOf('av-write', 2),
      'av-read.dmp': await dumpOf('av-read'),
      'clr-raise.dmp': await dumpOf('clr-raise'),
      'cpp-throw.dmp': await dumpOf('cpp-throw'),
      'attach-break.dmp': await dumpOf('attach-break'),
    });
    out = tempDir('winedbg');
    await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'winedbg',
      jobs: 2,
      timeoutMs: 60_000,
      env: wineEnv(),
      validateRecords: true,
    });
  });

  it('records the exception and the symbolized faulting stack of an access violation', () => {
    const av = byName(readNdjson(join(out, 'records.ndjson')), 'av-write-1.dmp');
    expect(av.ok, JSON.stringify(av.error)).to.equal(true);
    expect(av.engine).to.equal('winedbg');
    expect(av.exception).to.include({ code: '0xc0000005', accessType: 'write' });
    expect(av.frames[0]).to.include({ module: 'av', function: 'crash_here' });
    expect(av.frames[1]).to.include({ module: 'av', function: 'main' });
    expect(av.modules.faulting?.name).to.equal('av.exe');
    expect(av.timings.commands.map((c) => c.command)).to.deep.equal([
      'info exception',
      'bt',
      'info share',
    ]);
    expect(validate('analyzeRecord', av).errors).to.deep.equal([]);
  });

  it('looks past RaiseException in kernelbase to the program frames of a CLR-like raise and a C++ throw', () => {
    const records = readNdjson(join(out, 'records.ndjson'));
    const clr = byName(records, 'clr-raise.dmp');
    expect(clr.exception?.code).to.equal('0xe0434352');
    expect(clr.frames[0]).to.include({ module: 'kernelbase', function: 'RaiseException' });
    expect(clr.bucket?.signature).to.match(/^0xe0434352 \| raise!raise_one \| raise!main/);
    const cpp = byName(records, 'cpp-throw.dmp');
    expect(cpp.exception?.code).to.equal('0x20474343');
    expect(cpp.bucket?.signature).to.match(/^0x20474343 \| thrower/);
  });

  it('records the break-in of a dump taken on attach', () => {
    const attach = byName(readNdjson(join(out, 'records.ndjson')), 'attach-break.dmp');
    expect(attach.exception?.code).to.equal('0x80000003');
    expect(attach.modules.faulting?.name).to.equal('ntdll.dll');
  });

  it('groups the two runs of one crash and separates the others', () => {
    const summary = readSummary(out);
    expect(summary).to.include({ dumps: 6, ok: 6, failed: 0 });
    expect(summary.buckets.map((b) => b.count)).to.deep.equal([2, 1, 1, 1, 1]);
    const pair = summary.buckets[0];
    expect(pair?.signature).to.equal('0xc0000005 write | av!crash_here | av!main | av+0x13ae');
    expect(pair?.files.map((f) => f.split('/').pop())).to.deep.equal([
      'av-write-1.dmp',
      'av-write-2.dmp',
    ]);
    const read = summary.buckets.find((b) => b.signature.startsWith('0xc0000005 read'));
    expect(read?.id).to.not.equal(pair?.id);
  });
});
