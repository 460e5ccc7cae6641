// analyze's defaults as a user on Linux meets them (issue 29 item 4), from the real CLI: --engine
// auto picks the builtin reader off Windows even with winedbg on PATH, --symbols with winedbg is
// said to change nothing, bucket lines name the exception as the HTML report does, and a dump
// cut short gets a partial record and a bucket, marked truncated, exit 4.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDump } from '../../src/report/inspect/index.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT, wineEnv, wineRigReady } from '../helpers/wine.js';

const DUMPS = join(REPO_ROOT, 'examples', 'dumps');

describe('analyze defaults off Windows', function () {
  this.timeout(120_000);

  it('--engine auto (the default) reads dumps with the builtin engine though winedbg is on PATH', async function () {
    if (!wineRigReady()) this.skip(); // the point is a machine where winedbg could be chosen
    const out = join(makeTempDir('auto'), 'out');
    const run = await runCli(['analyze', join(DUMPS, 'cpp-throw.dmp'), '--out', out], {
      env: { ...wineEnv(), CDB_PATH: '' },
    });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(/^engine: builtin \(auto: cdb not found; reading dumps directly/m);
    const record = JSON.parse(readFileSync(join(out, 'records.ndjson'), 'utf8')) as {
      engine: string;
    };
    expect(record.engine).to.equal('builtin');
    // The bucket line names the exception, as the report's bucket table does.
    expect(run.stdout).to.match(
      / 0x20474343 \| ~?thrower\+0x[0-9a-f]+ .*\(C\+\+ exception \(GCC\/mingw\)\)$/m,
    );
  });

  it('--symbols with --engine winedbg: a warning that it changes nothing there', async function () {
    if (!wineRigReady()) this.skip();
    const run = await runCli(
      ['analyze', '/nonexistent.dmp', '--engine', 'winedbg', '--symbols', '/srv/symbols'],
      { env: wineEnv() },
    );
    expect(run.stderr).to.match(
      /^warning: winedbg takes no symbol path: --symbols changes nothing with it/m,
    );
    const quiet = await runCli(['analyze', '/nonexistent.dmp', '--engine', 'winedbg'], {
      env: wineEnv(),
    });
    expect(quiet.stderr).to.not.match(/warning: winedbg takes no symbol path/);
  });

  it('--engine dotnet-dump on Windows minidumps: a BAD_DUMP record each naming what reads them, no tool started', async () => {
    const out = join(makeTempDir('dotnet-dump-minidumps'), 'out');
    // A --debugger folder with no tool manifest: starting dotnet-dump from it would fail (exit
    // 3), so the run shows no minidump reaches the tool.
    const run = await runCli([
      'analyze',
      join(DUMPS, 'av-write-a.dmp'),
      '--engine',
      'dotnet-dump',
      '--debugger',
      makeTempDir('no-dotnet-tool'),
      '--out',
      out,
    ]);
    // Every input failed: the job ran and failed (exit 1).
    expect(run.code, run.stderr).to.equal(1);
    const [record] = readFileSync(join(out, 'records.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ok: boolean; error?: { code: string; message: string } });
    expect(record?.ok).to.equal(false);
    expect(record?.error?.code).to.equal('BAD_DUMP');
    expect(record?.error?.message).to.match(
      /^a Windows minidump \(MDMP\), not a Linux core dump: analyze it with --engine builtin or cdb$/,
    );
    expect(run.stderr).to.not.match(/ENOENT/);
  });

  it('a dump cut short: a partial record and a bucket, marked truncated, exit 4 (not BAD_DUMP)', async () => {
    const dir = makeTempDir('cut');
    const example = join(DUMPS, 'av-write-a.dmp');
    const read = await inspectDump(example);
    const exception = read.ok ? read.streams.find((s) => s.name === 'Exception') : undefined;
    if (exception === undefined) throw new Error(`${example} has no exception stream`);
    // Cut just past the exception record: the exception and the thread's stack stay readable,
    // the memory and the streams after it do not.
    const cut = join(dir, 'cut.dmp');
    writeFileSync(cut, readFileSync(example).subarray(0, exception.rva + exception.size));
    const out = join(dir, 'out');
    const run = await runCli(['analyze', cut, '--engine', 'builtin', '--out', out]);
    expect(run.code, run.stderr).to.equal(4);
    const record = JSON.parse(readFileSync(join(out, 'records.ndjson'), 'utf8')) as {
      ok: boolean;
      truncated?: boolean;
      bucket: { id: string } | null;
      error?: { code: string };
      warnings: string[];
      exception: { code: string } | null;
    };
    expect(record.ok).to.equal(true);
    expect(record.truncated).to.equal(true);
    expect(record.error).to.equal(undefined);
    expect(record.bucket?.id).to.match(/^[0-9a-f]{16}$/);
    expect(record.exception?.code).to.equal('0xc0000005');
    expect(record.warnings[0]).to.match(/^TRUNCATED: the file \(\d+ bytes\) ends before/);
    expect(run.stdout).to.match(/1 ok \(1 TRUNCATED: read in part\), 0 failed/);
    expect(run.stdout).to.match(/^buckets \(1, /m);
  });
});
