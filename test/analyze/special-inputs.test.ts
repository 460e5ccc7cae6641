// Inputs that are not plain dump files in a plain folder: a FIFO or a device named explicitly
// (refused at once with a record, never a hang), folder scans over symbolic links, FIFOs and
// broken links (links to files followed, the rest counted in the summary), `--out` pointing at a
// file, and a path under a folder the user cannot enter (EACCES said, not "matched nothing").
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inspectDump } from '../../src/report/inspect/index.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { expandInputs } from '../../src/workflows/analyze/inputs.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { dumpOf, readNdjson, readSummary, tempDir } from './fixtures.js';

const unix = process.platform !== 'win32';

function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

describe('analyze inputs that are not regular files', function () {
  this.timeout(60_000);

  before(function () {
    if (!unix) this.skip();
  });

  it('a FIFO named beside a good dump: a failed record for it, the good one recorded, a summary', async () => {
    const dir = tempDir('fifo');
    const fifo = join(dir, 'fifo.dmp');
    makeFifo(fifo);
    const out = join(dir, 'out');
    const result = await analyzeDumps({
      inputs: [fifo, await dumpOf('av-write')],
      outDir: out,
      engine: 'builtin',
    });
    expect(result.summary.dumps).to.equal(2);
    expect(result.summary.ok).to.equal(1);
    const failure = readNdjson(join(out, 'records.ndjson')).find((r) => r.file === fifo);
    expect(failure?.ok).to.equal(false);
    expect(failure?.error?.code).to.equal('IO');
    expect(failure?.error?.message).to.match(/not a regular file \(FIFO\)/);
  });

  it('/dev/zero and /dev/urandom named explicitly are refused at once', async () => {
    const out = join(tempDir('dev'), 'out');
    const result = await analyzeDumps({
      inputs: ['/dev/zero', '/dev/urandom'],
      outDir: out,
      engine: 'builtin',
    });
    expect(result.summary.failed).to.equal(2);
    for (const f of result.summary.failures) {
      expect(f.message).to.match(/not a regular file \(character device\)/);
    }
  });

  it('inspect refuses a FIFO at once (ok: false), not a hang', async () => {
    const fifo = join(tempDir('inspect-fifo'), 'x.dmp');
    makeFifo(fifo);
    const dump = await inspectDump(fifo);
    expect(dump.ok).to.equal(false);
    if (!dump.ok) expect(dump.error.message).to.match(/not a regular file \(FIFO\)/);
  });

  it('a folder scan follows links to dump files and counts FIFOs and broken links', async () => {
    const av = await dumpOf('av-write');
    const root = tempDir('links');
    for (let i = 0; i < 3; i++) symlinkSync(av, join(root, `link-${i}.dmp`));
    symlinkSync(join(root, 'gone.dmp.target'), join(root, 'broken.dmp'));
    makeFifo(join(root, 'pipe.dmp'));
    mkdirSync(join(root, 'sub'));
    symlinkSync(join(root, 'sub'), join(root, 'folder-link.dmp'));
    const found = await expandInputs([root]);
    expect(found.files.map((f) => f.slice(root.length + 1))).to.deep.equal([
      'link-0.dmp',
      'link-1.dmp',
      'link-2.dmp',
    ]);
    expect(found.skipped).to.deep.equal({
      'broken link': 1,
      FIFO: 1,
      'link to a directory': 1,
    });

    const out = join(tempDir('links-out'), 'out');
    const result = await analyzeDumps({ inputs: [root], outDir: out, engine: 'builtin' });
    expect(result.summary.dumps).to.equal(3);
    expect(result.summary.skippedInputs).to.deep.equal(found.skipped);
    expect(readSummary(out).skippedInputs).to.deep.equal(found.skipped);
  });

  it('a folder of nothing but FIFOs: "no dump files found" says what was passed over', async () => {
    const root = tempDir('only-fifos');
    makeFifo(join(root, 'a.dmp'));
    let message = '';
    try {
      await analyzeDumps({ inputs: [root], outDir: join(root, 'out'), engine: 'builtin' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.match(/no dump files found .*passed over: FIFO 1/);
  });

  it('--out pointing at an existing file: a cdb-harness usage error, not a raw EEXIST', async () => {
    const dir = tempDir('out-file');
    const file = join(dir, 'taken');
    writeFileSync(file, 'x');
    let error: unknown;
    try {
      await analyzeDumps({ inputs: [await dumpOf('av-write')], outDir: file, engine: 'builtin' });
    } catch (caught) {
      error = caught;
    }
    expect((error as { code?: string }).code).to.equal('USAGE');
    expect((error as Error).message).to.match(/--out .*taken: a file is in the way/);
  });

  it('an explicit path under a folder the user cannot enter: EACCES in its record', function () {
    // As root every folder can be entered, so the check runs as the unprivileged user `nobody`
    // (uid 65534) in a child process; as any other user, a chmod 000 folder does the same.
    const root = process.getuid?.() === 0;
    const dir = tempDir('eacces');
    chmodSync(dir, 0o755);
    // The run's own temp root (0700) must let the child through to reach its scratch folder.
    const runRoot = dirname(dir);
    const rootMode = statSync(runRoot).mode & 0o777;
    chmodSync(runRoot, rootMode | 0o111);
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    writeFileSync(join(locked, 'a.dmp'), 'x');
    chmodSync(locked, root ? 0o700 : 0o000);
    // tsx keeps a cache under TMPDIR: one the child can write to.
    const scratch = join(dir, 'tmp');
    mkdirSync(scratch);
    chmodSync(scratch, 0o777);
    const script = `
      import { expandInputs } from './src/workflows/analyze/inputs.ts';
      import { sha256File } from './src/workflows/analyze/file-hash.ts';
      const found = await expandInputs([${JSON.stringify(join(locked, 'a.dmp'))}]);
      let error = '';
      try { await sha256File(found.files[0]); } catch (e) { error = e.message; }
      console.log(JSON.stringify({ ...found, error }));`;
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, HOME: scratch, TMPDIR: scratch },
        ...(root ? { uid: 65534, gid: 65534 } : {}),
      },
    );
    chmodSync(locked, 0o700);
    chmodSync(runRoot, rootMode);
    expect(run.status, run.stderr).to.equal(0);
    const result = JSON.parse(run.stdout) as {
      files: string[];
      unmatched: string[];
      error: string;
    };
    expect(result.unmatched).to.deep.equal([]);
    expect(result.files).to.deep.equal([join(locked, 'a.dmp')]);
    expect(result.error).to.match(/EACCES/);
  });
});
