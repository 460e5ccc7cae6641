// A file is truncated when anything it references lies past its end, not only its streams: module
// names and CodeView records cut off, a file cut inside its exception context. Each is said once
// (TRUNCATED, `truncated: true`, one summary line, not a warning per module) and exits 4.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDump, type InspectedDumpOk } from '../../src/report/inspect/inspect-json.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { assertValid } from '../../src/report/schemas.js';
import { cutReferencesDump } from '../helpers/hostile-dumps.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');

async function inspectOk(path: string): Promise<InspectedDumpOk> {
  const dump = await inspectDump(path);
  if (!dump.ok) throw new Error(dump.error.message);
  assertValid('inspect', { schemaVersion: 1, dumps: [dump] });
  return dump;
}

/** The file offset and size of the exception stream's CONTEXT (MINIDUMP_EXCEPTION_STREAM). */
function exceptionContext(bytes: Buffer): { rva: number; size: number } {
  const count = bytes.readUInt32LE(8);
  const directory = bytes.readUInt32LE(12);
  for (let i = 0; i < count; i++) {
    const at = directory + i * 12;
    if (bytes.readUInt32LE(at) !== 6) continue;
    const rva = bytes.readUInt32LE(at + 8);
    return { size: bytes.readUInt32LE(rva + 160), rva: bytes.readUInt32LE(rva + 164) };
  }
  throw new Error('no exception stream');
}

describe('truncation: anything referenced past the end of the file', function () {
  this.timeout(60_000);

  it('module names and CodeView records cut off: truncated, one line, whole streams', async () => {
    const dir = makeTempDir('cut-refs');
    const { whole, cut } = cutReferencesDump(40);
    writeFileSync(join(dir, 'whole.dmp'), whole);
    writeFileSync(join(dir, 'cut.dmp'), cut);

    const good = await inspectOk(join(dir, 'whole.dmp'));
    expect(good.truncated).to.equal(false);
    expect(good.modules[3]?.name).to.equal('mod3.dll');
    expect(good.modules[3]?.pdbName).to.equal('mod3.pdb');

    const bad = await inspectOk(join(dir, 'cut.dmp'));
    expect(bad.truncated).to.equal(true);
    expect(bad.pastEnd).to.deep.equal({
      'ModuleList strings': 40,
      'ModuleList CodeView records': 40,
    });
    expect(bad.warnings[0]).to.match(
      /^TRUNCATED: the file \(\d+ bytes\) ends before what it references: 40 ModuleList strings, 40 ModuleList CodeView records/,
    );
    // One line, not a warning per module.
    expect(bad.warnings.filter((w) => /mod\d|module \d/.test(w))).to.deep.equal([]);

    const text = await runCli(['inspect', join(dir, 'cut.dmp')]);
    expect(text.code).to.equal(4);
    expect(text.stdout).to.match(/: TRUNCATED minidump/);
  });

  it('analyze: a cut dump is a failed record with truncated: true and no bucket; exit 4', async () => {
    const dir = makeTempDir('cut-analyze');
    writeFileSync(join(dir, 'cut.dmp'), cutReferencesDump(8).cut);
    const result = await analyzeDumps({
      inputs: [join(dir, 'cut.dmp')],
      outDir: join(dir, 'out'),
      engine: 'builtin',
    });
    const line = readFileSync(join(dir, 'out', 'records.ndjson'), 'utf8').trim();
    const record = JSON.parse(line) as {
      ok: boolean;
      truncated?: boolean;
      bucket: unknown;
      error?: { message: string };
    };
    expect(record.ok).to.equal(false);
    expect(record.truncated).to.equal(true);
    expect(record.bucket).to.equal(null);
    expect(record.error?.message).to.match(/^TRUNCATED: /);
    expect(result.summary.failed).to.equal(1);
    const cli = await runCli([
      'analyze',
      join(dir, 'cut.dmp'),
      '--engine',
      'builtin',
      '--out',
      join(dir, 'out2'),
    ]);
    expect(cli.code).to.equal(4);
  });

  it('a real dump cut inside its exception context: TRUNCATED, exit 4', async () => {
    const bytes = readFileSync(EXAMPLE);
    const context = exceptionContext(bytes);
    const dir = makeTempDir('cut-context');
    const path = join(dir, 'cut-in-context.dmp');
    writeFileSync(path, bytes.subarray(0, context.rva + Math.floor(context.size / 2)));
    const dump = await inspectOk(path);
    expect(dump.truncated).to.equal(true);
    expect(dump.pastEnd).to.have.property('exception context', 1);
    expect((await runCli(['inspect', path])).code).to.equal(4);
    expect((await inspectOk(EXAMPLE)).truncated).to.equal(false);
  });
});
