// Exit codes and error lines as each --help and docs/cli.md promise them, from the real CLI in a
// child process: one prefix (`cdb-harness: `) for every error, commander's included.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectDump } from '../../src/report/inspect/index.js';
import { runCli } from '../helpers/cli.js';
import { TRANSCRIPTS_DIR } from '../helpers/transcripts-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');
const KC = join(TRANSCRIPTS_DIR, 'misc', 'kc-x64-call-site-only.txt');

describe('CLI exit codes and error lines', function () {
  this.timeout(120_000);
  let dir = '';
  let truncated = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cdbh-exit-'));
    // Keep only the first 8 bytes of the Exception stream (the last structure stream of this
    // dump): the header, the directory, threads and modules stay whole, the exception does not.
    const read = await inspectDump(EXAMPLE);
    const exception = read.ok ? read.streams.find((s) => s.name === 'Exception') : undefined;
    if (exception === undefined) throw new Error(`${EXAMPLE} has no exception stream`);
    truncated = join(dir, 'cut.dmp');
    writeFileSync(truncated, readFileSync(EXAMPLE).subarray(0, exception.rva + 8));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const usage = (stderr: string) => expect(stderr).to.match(/^cdb-harness: /);

  it('parse: 1 for a missing file (as --help says), 2 for bad options, --json accepted', async () => {
    const missing = await runCli(['parse', '/no/such/file.txt']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.equal('cdb-harness: no such file: /no/such/file.txt\n');
    const help = await runCli(['parse', '--help']);
    expect(help.stdout).to.match(/1 the file could not be read \(missing/);

    expect((await runCli(['parse', KC, '--dialect', 'gdb'])).code).to.equal(2);
    const both = await runCli(['parse', KC, '--json', '--text']);
    expect(both.code).to.equal(2);
    usage(both.stderr);

    const plain = await runCli(['parse', KC]);
    const json = await runCli(['parse', KC, '--json']);
    expect(json.code).to.equal(0);
    expect(json.stdout).to.equal(plain.stdout);
    expect(JSON.parse(json.stdout)).to.have.property('entries');
  });

  it('inspect: a truncated dump is read, flagged TRUNCATED loudly, exit 4 (text and JSON)', async () => {
    const text = await runCli(['inspect', truncated]);
    expect(text.code).to.equal(4);
    expect(text.stdout).to.match(/: TRUNCATED minidump/);
    expect(text.stdout).to.match(/exception UNKNOWN: the exception stream was cut off/);
    expect(text.stderr).to.match(
      /^cdb-harness: .*cut\.dmp: TRUNCATED: the file \(\d+ bytes\) ends before what it references: .*1 Exception stream/,
    );

    const json = await runCli(['inspect', '--json', truncated, EXAMPLE]);
    expect(json.code).to.equal(4);
    const envelope = JSON.parse(json.stdout) as { dumps: { ok: boolean; warnings: string[] }[] };
    expect(envelope.dumps[0]?.ok).to.equal(true);
    expect(envelope.dumps[0]?.warnings[0]).to.match(/^TRUNCATED: /);
    expect(envelope.dumps[1]?.warnings.join(' ')).to.not.match(/TRUNCATED/);

    expect((await runCli(['inspect', EXAMPLE])).code).to.equal(0);
    expect((await runCli(['inspect', '-z', EXAMPLE])).code).to.equal(0);
    expect((await runCli(['inspect', join(dir, 'missing.dmp')])).code).to.equal(1);
    const none = await runCli(['inspect']);
    expect(none.code).to.equal(2);
    usage(none.stderr);
  });

  it('analyze takes -z, --timeout 5m and --symbol-path (the README spellings); usage errors exit 2', async () => {
    const out = join(dir, 'analyze-out');
    const run = await runCli([
      'analyze',
      '-z',
      EXAMPLE,
      '--engine',
      'builtin',
      '--timeout',
      '5m',
      '--symbol-path',
      'srv*C:\\symbols',
      '--out',
      out,
      '--json',
    ]);
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout)).to.include({ dumps: 1, ok: 1 });

    for (const args of [
      ['analyze'],
      ['analyze', EXAMPLE, '--timeout', 'soon'],
      ['analyze', EXAMPLE, '-y', 'a', '--symbol-path', 'b'],
      ['analyze', EXAMPLE, '--bogus'],
      ['watch', '--engine', 'winedbg'],
      ['heap-trend', '--engine', 'winedbg', '-p', 'x1'],
    ]) {
      const bad = await runCli(args);
      expect(bad.code, args.join(' ')).to.equal(2);
      usage(bad.stderr);
    }
  });

  it('umdh-diff 1 for an unreadable snapshot, gflags 3 on Linux (Windows only)', async () => {
    const umdh = await runCli(['umdh-diff', join(dir, 'nope1.log'), join(dir, 'nope2.log')]);
    expect(umdh.code).to.equal(1);
    usage(umdh.stderr);
    if (process.platform !== 'win32') {
      const gflags = await runCli(['gflags', '--show', 'w3wp.exe'], {
        env: { ...process.env, GFLAGS_PATH: '', CDB_PATH: '' },
      });
      expect(gflags.code).to.equal(3);
      usage(gflags.stderr);
    }
  });
});
