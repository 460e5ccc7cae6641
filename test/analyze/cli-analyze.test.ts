// `cdb-harness analyze` as a user types it: the README's command on examples/dumps, --json,
// exit codes, usage errors, and --help that teaches by example.
import { expect } from 'chai';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgram, main } from '../../src/cli/main.js';
import { validate } from '../../src/report/schemas.js';
import type { AnalyzeSummary } from '../../src/report/analyze/analyze-record.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { tempDir } from './fixtures.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  process.stdout.write = (chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  };
  process.stderr.write = (chunk: string | Uint8Array) => {
    err.push(String(chunk));
    return true;
  };
  try {
    const code = await main(['node', 'cdb-harness', 'analyze', ...args]);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}

describe('cdb-harness analyze (CLI)', function () {
  this.timeout(60_000);

  it('triages examples/dumps with the builtin engine and says what it found and where', async () => {
    const out = tempDir('cli');
    // The README's main job: the example symbol store holds symcrash's image and PDB.
    const store = join(EXAMPLES, '..', 'symbols');
    const { code, stdout, stderr } = await run([
      EXAMPLES,
      '--engine',
      'builtin',
      '--symbol-path',
      store,
      '--image-path',
      store,
      '--out',
      out,
    ]);
    expect(code).to.equal(0);
    expect(stderr).to.include('engine: builtin');
    expect(stdout).to.match(/^6 dumps analysed in [\d.]+ s: 6 ok, 0 failed, 0 quarantined$/m);
    expect(stdout).to.match(
      /^top exception: 0xc0000005 Access violation writing 0x10 \(3 dumps\)$/m,
    );
    expect(stdout).to.match(/^buckets \(5, algorithm cdbh-sig-3\):$/m);
    // symcrash walks by its image's unwind data and names each frame from its PDB.
    expect(stdout).to.match(
      /^ {2}1 {2}[0-9a-f]{16} {2}0xc0000005 write \| symcrash!store_value \| symcrash!run_job \| symcrash!main {2}\(Access violation writing 0x10\)$/m,
    );
    const records = readFileSync(join(out, 'records.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { file: string; frames: { trust?: string }[] });
    const symcrash = records.find((r) => r.file.endsWith('symcrash.dmp'));
    expect(symcrash?.frames.slice(1, 3).map((f) => f.trust)).to.deep.equal(['cfi', 'cfi']);
    // av.exe's image is not here (the dump's build): its callers come only from a scan, and a
    // scan's frames stay out of a bucket that has a better one (the faulting frame).
    expect(stdout).to.match(
      /^ {2}2 {2}[0-9a-f]{16} {2}0xc0000005 write \| av\+0x154a {2}\(Access violation writing 0x10\)$/m,
    );
    expect(stdout).to.include(`report:  ${join(out, 'report.html')}`);
  });

  it('prints only the summary JSON on stdout with --json', async () => {
    const out = tempDir('cli-json');
    const { code, stdout } = await run([EXAMPLES, '--engine', 'builtin', '--out', out, '--json']);
    expect(code).to.equal(0);
    const summary = JSON.parse(stdout) as AnalyzeSummary;
    expect(validate('analyzeSummary', summary).errors).to.deep.equal([]);
    expect(summary).to.include({ dumps: 6, ok: 6 });
  });

  it('exits 4 when some inputs are not dumps, and still reports the good ones', async () => {
    const dir = tempDir('cli-partial');
    copyFileSync(join(EXAMPLES, 'av-write-a.dmp'), join(dir, 'good.dmp'));
    writeFileSync(join(dir, 'bad.dmp'), 'not a dump');
    const { code, stdout } = await run([dir, '--engine', 'builtin', '--out', join(dir, 'out')]);
    expect(code).to.equal(4);
    expect(stdout).to.match(/1 ok, 1 failed/);
    expect(stdout).to.match(/failed: .*bad\.dmp: BAD_DUMP/);
  });

  it('exits 2 on usage errors, naming the problem', async () => {
    const noDumps = await run([tempDir('cli-empty'), '--engine', 'builtin']);
    expect(noDumps.code).to.equal(2);
    expect(noDumps.stderr).to.match(/no dump files found/);
    const shard = await run([EXAMPLES, '--engine', 'builtin', '--shard', '3/2']);
    expect(shard.code).to.equal(2);
    expect(shard.stderr).to.match(/--shard wants I\/N/);
    const engine = await run([EXAMPLES, '--engine', 'gdb']);
    expect(engine.code).to.equal(2);
  });

  it('rebuckets and merges output folders from the command line', async () => {
    const a = tempDir('cli-a');
    await run([join(EXAMPLES, 'av-write-a.dmp'), '--engine', 'builtin', '--out', a]);
    const b = tempDir('cli-b');
    await run([join(EXAMPLES, 'clr-raise.dmp'), '--engine', 'builtin', '--out', b]);
    const merged = tempDir('cli-m');
    const merge = await run(['--merge', a, b, '--out', merged, '--json']);
    expect(merge.code).to.equal(0);
    expect((JSON.parse(merge.stdout) as AnalyzeSummary).dumps).to.equal(2);
    const skip = join(merged, 'skip.txt');
    writeFileSync(skip, '# look through av too\nav\n');
    const rebucket = await run(['--rebucket', merged, '--skip-modules', skip, '--json']);
    expect(rebucket.code).to.equal(0);
    expect((JSON.parse(rebucket.stdout) as AnalyzeSummary).algorithm).to.match(/\+lists\./);
  });

  it('teaches with examples in --help', async () => {
    const analyze = (await buildProgram(() => undefined)).commands.find(
      (c) => c.name() === 'analyze',
    );
    let help = '';
    analyze?.configureOutput({ writeOut: (s) => (help += s) });
    analyze?.outputHelp();
    for (const text of ['--engine', '--resume', '--shard', '--merge', '--rebucket', 'Examples:']) {
      expect(help).to.include(text);
    }
    expect(help).to.include('cdb-harness analyze examples/dumps --engine builtin');
  });
});
