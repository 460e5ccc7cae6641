// What a user gets from npm: `npm pack` of this repository, installed into an empty folder WITHOUT
// the optional node-pty (so node-pty is really missing, not mocked), and again with it; the sizes
// of both installs against the package's goals (12 MB without node-pty, 35 MB with it, neither with
// the queue's optional bullmq and ioredis, which are then added and found); then the installed CLI and
// library are used from there: `--version`, `inspect`, `parse`, `analyze --engine builtin`, `--engine auto`
// falling back to the builtin reader, a debugger engine refused with a clear message, the library
// entry and a schema through `exports`. Also checks what the tarball carries (no source maps
// pointing at an unshipped src/, docs/ and one example dump in, the other examples out) and that
// every file the README links to is in it. The installed CLI runs the bundle (dist/bundle/cli):
// its output is compared with the CLI's from source, through tsx. Needs the npm registry or a warm
// npm cache.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../../src/report/schemas.js';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/wine.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without the npm_* variables of an enclosing `npm test`. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toLowerCase().startsWith('npm_')) env[key] = value;
  }
  return env;
}

function run(
  file: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = 240_000,
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { cwd, env: cleanEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const MB = 1024 * 1024;

/** A new project folder `dir` with `npm install` of `specs` in it (from the cache when it can). */
async function installInto(dir: string, ...specs: string[]): Promise<void> {
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), '{ "name": "try-cdb-harness", "private": true }\n');
  const installed = await run(
    npm,
    ['install', '--prefer-offline', '--no-audit', '--no-fund', ...specs],
    dir,
  );
  expect(installed.code, installed.stderr).to.equal(0);
}

/** Bytes on disk under a folder, as `du` counts them (blocks of the files, links not followed). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    total += statSync(join(entry.parentPath, entry.name)).blocks * 512;
  }
  return total;
}

describe('the npm package, installed from its tarball', function () {
  this.timeout(600_000);
  let work = '';
  let app = '';
  let files: string[] = [];
  let cli = '';
  let tarball = '';
  const version = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'cdbh-pack-'));
    // `npm pack` runs `prepack` (the build: tsc + the precompiled validators) first.
    const packed = await run(npm, ['pack', '--json', '--pack-destination', work], REPO_ROOT);
    expect(packed.code, packed.stderr).to.equal(0);
    const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    files = info[0]!.files.map((f) => f.path);
    // An empty project folder of its own.
    app = join(work, 'app');
    await installInto(app, '--omit=optional', join(work, info[0]!.filename));
    cli = join(app, 'node_modules', '.bin', 'cdb-harness');
    tarball = join(work, info[0]!.filename);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('carries the license, docs, schemas, validators, the CLI bundle and one example, and no source maps', () => {
    for (const path of [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/cdb-harness.js',
      'dist/src/index.d.ts',
      'dist/bundle/cli/main.js',
      // the library entry: an entry point of the CLI's bundle (one copy of the code)
      'dist/bundle/cli/index.js',
      // `dump -h` runs it beside the target (built from native/window-probe at pack time)
      'build/native/window-probe.exe',
      // analyze threads start from this file, next to the chunk that starts them
      'dist/bundle/cli/analyze-thread.js',
      'dist/validators/inspect.cjs',
      'schemas/inspect.schema.json',
      'docs/records.md',
      'docs/bucketing.md',
      'dbgscripts/triage.cdb.txt',
      'examples/dumps/av-write-a.dmp',
    ]) {
      expect(files, path).to.include(path);
    }
    expect(files.filter((f) => f.endsWith('.map'))).to.deep.equal([]);
    // The code once: dist/src ships its type declarations only.
    expect(files.filter((f) => f.startsWith('dist/src/') && !f.endsWith('.d.ts'))).to.deep.equal(
      [],
    );
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).to.deep.equal([]);
    expect(files).to.not.include('examples/dumps/av-write-b.dmp');
  });

  it('has every file the README links to', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#:]+)\)/g)].map((m) => m[1]!);
    expect(links).to.include('docs/records.md');
    for (const link of links) expect(files, link).to.include(link);
  });

  it('installs without node-pty, the native optional dependency, and without ajv or the queue', () => {
    expect(existsSync(join(app, 'node_modules', 'cdb-harness', 'package.json'))).to.equal(true);
    for (const name of ['@lydell/node-pty', 'node-pty', 'ajv', 'bullmq', 'ioredis']) {
      expect(existsSync(join(app, 'node_modules', name)), name).to.equal(false);
    }
  });

  it('installs in at most 12 MB without node-pty, 35 MB with it, and node-pty then spawns', async () => {
    expect(treeBytes(join(app, 'node_modules')) / MB).to.be.at.most(12);
    const full = join(work, 'full');
    await installInto(full, tarball);
    expect(treeBytes(join(full, 'node_modules')) / MB).to.be.at.most(35);
    // node-pty's prebuilt native part for this platform came with it, and it runs a child.
    const spawned = await run(
      process.execPath,
      [
        '-e',
        "const p = require('@lydell/node-pty').spawn(process.execPath, ['-e', 'process.stdout.write(String(6 * 7))'], {}); let o = ''; p.onData((d) => (o += d)); p.onExit(() => console.log(o.trim()));",
      ],
      full,
    );
    expect(spawned.stdout.trim(), spawned.stderr).to.equal('42');
  });

  it('ships the window probe `dump -h` runs, as a Windows program', () => {
    const probe = join(app, 'node_modules', 'cdb-harness', 'build', 'native', 'window-probe.exe');
    expect(readFileSync(probe).subarray(0, 2).toString('latin1')).to.equal('MZ');
  });

  it('stops the queue commands with the install line (exit 3), and runs them once it is followed', async () => {
    const dumps = join(app, 'node_modules', 'cdb-harness', 'examples', 'dumps');
    for (const args of [
      ['worker', '--queue', 'redis://127.0.0.1:1'],
      ['analyze', dumps, '--queue', 'redis://127.0.0.1:1', '--out', 'q'],
    ]) {
      const result = await run(cli, args, app);
      expect(result.code, args.join(' ')).to.equal(3);
      expect(result.stderr).to.include('npm install bullmq@6.7.0 ioredis@6.0.0');
    }
    const help = await run(cli, ['worker', '--help'], app);
    expect(help.code).to.equal(0);
    // The user's project adds them as told; the worker then gets as far as Redis (none listens
    // on port 1: a queue error, exit 1, no longer the missing packages).
    const queueDir = join(work, 'queue');
    await installInto(queueDir, '--omit=optional', tarball, 'bullmq@6.7.0', 'ioredis@6.0.0');
    const result = await run(
      join(queueDir, 'node_modules', '.bin', 'cdb-harness'),
      ['worker', '--queue', 'redis://127.0.0.1:1'],
      queueDir,
    );
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr).to.not.include('npm install bullmq');
    expect(result.stderr).to.match(/redis/i);
  });

  it('prints the version of package.json', async () => {
    const result = await run(cli, ['--version'], app);
    expect(result.code).to.equal(0);
    expect(result.stdout.trim()).to.equal(version);
  });

  it('inspects the shipped example dump', async () => {
    const dump = join(app, 'node_modules', 'cdb-harness', 'examples', 'dumps', 'av-write-a.dmp');
    const result = await run(cli, ['inspect', '--json', dump], app);
    expect(result.code, result.stderr).to.equal(0);
    const envelope = JSON.parse(result.stdout) as { dumps: { exception: { code: string } }[] };
    expect(envelope.dumps[0]?.exception.code).to.equal('0xc0000005');
    expect(validate('inspect', envelope).errors).to.deep.equal([]);
  });

  it('analyzes with the builtin engine and writes records, summary and report', async () => {
    const dumps = join(app, 'node_modules', 'cdb-harness', 'examples', 'dumps');
    const result = await run(cli, ['analyze', dumps, '--engine', 'builtin', '--out', 'out'], app);
    expect(result.code, result.stderr).to.equal(0);
    for (const file of ['records.ndjson', 'summary.json', 'report.html']) {
      expect(existsSync(join(app, 'out', file)), file).to.equal(true);
    }
    const summary = JSON.parse(readFileSync(join(app, 'out', 'summary.json'), 'utf8')) as {
      dumps: number;
      tool: { version: string };
    };
    expect(summary.dumps).to.equal(1);
    expect(summary.tool.version).to.equal(version);
  });

  it('prints and writes what the CLI run from source does (the bundle is the same code)', async () => {
    const dumps = join(app, 'node_modules', 'cdb-harness', 'examples', 'dumps');
    const dump = join(dumps, 'av-write-a.dmp');
    for (const args of [
      ['inspect', '--json', dump],
      ['inspect', dump],
    ]) {
      const [bundled, source] = await Promise.all([
        run(cli, args, app),
        runCli(args, { cwd: app }),
      ]);
      expect([bundled.code, bundled.stdout], args.join(' ')).to.deep.equal([0, source.stdout]);
    }
    const analyze = (out: string) => ['analyze', dumps, '--engine', 'builtin', '--out', out];
    const bundled = await run(cli, analyze('same-bundled'), app);
    const source = await runCli(analyze('same-source'), { cwd: app });
    expect([bundled.code, source.code], source.stderr).to.deep.equal([0, 0]);
    // Everything but the run's own clock: timings per record, generatedAt in the summary.
    const records = (out: string) =>
      readFileSync(join(app, out, 'records.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => ({ ...(JSON.parse(line) as object), timings: undefined }));
    const summary = (out: string) => ({
      ...(JSON.parse(readFileSync(join(app, out, 'summary.json'), 'utf8')) as object),
      generatedAt: undefined,
    });
    expect(records('same-bundled')).to.deep.equal(records('same-source'));
    expect(summary('same-bundled')).to.deep.equal(summary('same-source'));
  });

  it('falls back to the builtin engine under --engine auto when node-pty is missing', async () => {
    const dumps = join(app, 'node_modules', 'cdb-harness', 'examples', 'dumps');
    const result = await run(cli, ['analyze', dumps, '--out', 'auto'], app);
    expect(result.code, result.stderr).to.equal(0);
    const summary = JSON.parse(readFileSync(join(app, 'auto', 'summary.json'), 'utf8')) as {
      options: { engine: string };
    };
    expect(summary.options.engine).to.equal('builtin');
  });

  it('refuses a debugger engine with a message saying how to get node-pty (exit 3)', async () => {
    const dumps = join(app, 'node_modules', 'cdb-harness', 'examples', 'dumps');
    const result = await run(cli, ['analyze', dumps, '--engine', 'winedbg', '--out', 'w'], app);
    expect(result.code).to.equal(3);
    expect(result.stderr).to.match(/need node-pty.*npm install @lydell\/node-pty/);
    expect(result.stderr).to.not.match(/ERR_MODULE_NOT_FOUND|at .*\.js:\d+/);
  });

  it('parses saved debugger output', async () => {
    // Prompt and banner lines from events/clr-e0434352-first-and-second-chance-net8-x64.txt.
    const log = join(app, 'session.log');
    writeFileSync(
      log,
      '0:000> g\n(5fc4.6320): CLR exception - code e0434352 (!!! second chance !!!)\n0:000> \n',
    );
    const result = await run(cli, ['parse', log], app);
    expect(result.code, result.stderr).to.equal(0);
    const envelope = JSON.parse(result.stdout) as { events: { code: string }[] };
    expect(envelope.events.map((e) => e.code)).to.deep.equal(['0xe0434352']);
  });

  it('exports the library entry and the schemas', async () => {
    const script = [
      "const api = await import('cdb-harness');",
      "const { createRequire } = await import('node:module');",
      'const require = createRequire(process.cwd() + "/");',
      "const schema = require('cdb-harness/schemas/inspect.schema.json');",
      "const pkg = require('cdb-harness/package.json');",
      "const dump = await api.inspectDump('node_modules/cdb-harness/examples/dumps/av-write-a.dmp');",
      "console.log(JSON.stringify({ fn: typeof api.analyzeDumps, title: schema.title, version: pkg.version, ok: api.validate('inspect', { schemaVersion: 1, dumps: [dump] }).ok }));",
    ].join('\n');
    const result = await run(process.execPath, ['--input-type=module', '-e', script], app);
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.include({ fn: 'function', version, ok: true });
    expect((JSON.parse(result.stdout) as { title: string }).title).to.match(/^inspect/);
  });
});
