// `inspect --symbols` and `analyze --symbols` over local symbol paths (a flat folder, a two-tier
// store), a PDB of another build (refused by GUID), and `--rebucket` keeping the buckets
// of a folder made with symbols.
import { expect } from 'chai';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { AnalyzeDumpRecord } from '../../src/report/analyze/analyze-record.js';
import { msfLayout } from '../helpers/msf-bytes.js';
import { markerLine, pdbPathOf, pdbTargetReady } from '../helpers/pdb-targets.js';
import { hasPdbUtil, pdbUtilFacts } from '../helpers/pdbutil.js';
import { wineRigReady } from '../helpers/wine.js';
import { dumpAtFirstChance } from '../minidump/helpers/real-dumps.js';

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  process.stdout.write = (chunk: string | Uint8Array) => (out.push(String(chunk)), true);
  process.stderr.write = (chunk: string | Uint8Array) => (err.push(String(chunk)), true);
  try {
    const code = await main(['node', 'cdb-harness', ...args]);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}

function records(out: string): AnalyzeDumpRecord[] {
  return readFileSync(join(out, 'records.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AnalyzeDumpRecord);
}

describe('symbols: inspect/analyze --symbols with local paths', function () {
  this.timeout(120_000);
  let dir: string;
  let dump: string;
  let debugId: string;

  before(async function () {
    if (!wineRigReady() || !pdbTargetReady('symcrash') || !hasPdbUtil()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'cdbh-symcli-'));
    dump = (await dumpAtFirstChance('symcrash', [], 'symcrash-cli.dmp')).path;
    debugId = pdbUtilFacts(pdbPathOf('symcrash')).debugId;
  });
  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('inspect names the walked stack with source lines, in text and JSON', async () => {
    const flat = join(dir, 'flat');
    mkdirSync(flat, { recursive: true });
    copyFileSync(pdbPathOf('symcrash'), join(flat, 'symcrash.pdb'));
    const text = await cli(['inspect', dump, '--symbols', flat]);
    expect(text.code, text.stderr).to.equal(0);
    const crash = markerLine('symcrash-store.c', 'CRASH-LINE');
    expect(text.stdout).to.match(
      new RegExp(`symcrash!store_value\\+0x[0-9a-f]+ \\[\\S*symcrash-store\\.c @ ${crash}\\]`),
    );
    expect(text.stdout).to.match(/symcrash!run_job\+0x[0-9a-f]+ \[\S*symcrash\.c @ \d+\]/);
    const json = await cli(['inspect', dump, '--json', '--symbol-path', flat]);
    expect(json.code, json.stderr).to.equal(0);
    const parsed = JSON.parse(json.stdout) as {
      dumps: { threads: { stack?: { frames: { function?: string; line?: number }[] } }[] }[];
    };
    const frames = parsed.dumps[0]?.threads.find((t) => t.stack !== undefined)?.stack?.frames;
    expect(frames?.slice(0, 3).map((f) => f.function)).to.deep.equal([
      'store_value',
      'run_job',
      'main',
    ]);
    expect(frames?.[0]?.line).to.equal(crash);
  });

  it('finds the PDB in a two-tier store (index2.txt) through srv*STORE', async () => {
    const store = join(dir, 'two-tier');
    mkdirSync(join(store, 'sy', 'symcrash.pdb', debugId), { recursive: true });
    writeFileSync(join(store, 'index2.txt'), '');
    copyFileSync(pdbPathOf('symcrash'), join(store, 'sy', 'symcrash.pdb', debugId, 'symcrash.pdb'));
    const out = join(dir, 'out-two-tier');
    const run = await cli([
      'analyze',
      dump,
      '--engine',
      'builtin',
      '--symbols',
      `srv*${store}`,
      '--out',
      out,
      '--no-progress',
    ]);
    expect(run.code, run.stderr).to.equal(0);
    const [record] = records(out);
    expect(record?.frames[0]?.function).to.equal('store_value');
    expect(record?.symbols?.modules[0]).to.include({ status: 'loaded', origin: store });
  });

  it('refuses a PDB of another build (GUID differs) and says so', async () => {
    const wrong = join(dir, 'wrong');
    mkdirSync(wrong, { recursive: true });
    const bytes = Buffer.from(readFileSync(pdbPathOf('symcrash')));
    const guidAt = msfLayout(bytes).streamOffset(1, 12); // PDB info stream: GUID at offset 12
    bytes[guidAt] = (bytes[guidAt] ?? 0) ^ 0xff;
    writeFileSync(join(wrong, 'symcrash.pdb'), bytes);
    const out = join(dir, 'out-wrong');
    const run = await cli([
      'analyze',
      dump,
      '--engine',
      'builtin',
      '--symbols',
      wrong,
      '--out',
      out,
      '--no-progress',
    ]);
    expect(run.code, run.stderr).to.equal(0);
    const [record] = records(out);
    expect(record?.frames[0]?.function).to.equal(undefined);
    expect(record?.symbols?.modules[0]?.status).to.equal('missing');
    expect(record?.symbols?.modules[0]?.reason).to.include(`a different build (wanted ${debugId})`);
    // Partly named frames: every frame module+offset, none half named.
    expect(record?.bucket?.signature).to.match(/^0xc0000005 write \| symcrash\+0x[0-9a-f]+ \|/);
  });

  it('--rebucket gives a folder made with symbols the same buckets, under the one algorithm', async () => {
    const flat = join(dir, 'flat');
    const out = join(dir, 'out-rebucket');
    expect(
      (
        await cli([
          'analyze',
          dump,
          '--engine',
          'builtin',
          '--symbols',
          flat,
          '--out',
          out,
          '--no-progress',
        ])
      ).code,
    ).to.equal(0);
    const before = records(out)[0]?.bucket;
    expect(before?.algorithm).to.equal('cdbh-sig-3');
    const again = await cli(['analyze', '--rebucket', out]);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/rebucketed 1 records with cdbh-sig-3: 0 changed/);
    expect(records(out)[0]?.bucket).to.deep.equal(before);
  });
});
