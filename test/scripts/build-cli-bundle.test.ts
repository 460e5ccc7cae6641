// scripts/build-cli-bundle.ts on a small compiled tree of its own (the shapes the real dist/src
// has): a command loaded by import() stays a chunk of its own, a worker thread's file becomes an
// entry beside the chunks so `new URL('./x-thread.js', import.meta.url)` still finds it from the
// bundle, commander (CommonJS) runs inside an ES module bundle, tinyglobby's picomatch is the
// bundle's own (fdir no longer loads a second copy), the debugger side's packages stay imports,
// and a package nobody chose to inline stops the build with its name.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { bundleCli } from '../../scripts/build-cli-bundle.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

/** A compiled tree under a fresh folder (node_modules: the repository's); returns its root. */
function compiledTree(files: Record<string, string>): string {
  const root = makeTempDir('bundle');
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, 'dist', 'src', path, '..'), { recursive: true });
    writeFileSync(join(root, 'dist', 'src', path), text);
  }
  return root;
}

const SHARED = 'export const greet = (who) => `hello from ${who}`;\n';

describe('scripts/build-cli-bundle.ts', () => {
  it('keeps lazy commands lazy and starts a worker thread from the bundle', async () => {
    const root = compiledTree({
      'cli/main.js': [
        "import { Command } from 'commander';",
        "import { startThread } from '../workflows/pool.js';",
        "const program = new Command('t').argument('<what>');",
        'program.parse(process.argv);',
        "if (program.args[0] === 'command') console.log((await import('./command.js')).run());",
        'else startThread();',
      ].join('\n'),
      'cli/command.js': "export const run = () => 'LAZY COMMAND RAN';\n",
      'workflows/pool.js': [
        "import { Worker } from 'node:worker_threads';",
        "import { greet } from '../common/shared.js';",
        'export function startThread() {',
        "  const worker = new Worker(new URL('./x-thread.js', import.meta.url));",
        "  worker.once('message', (text) => console.log(`${greet('main')}; ${text}`));",
        '}',
      ].join('\n'),
      'workflows/x-thread.js': [
        "import { parentPort } from 'node:worker_threads';",
        "import { greet } from '../common/shared.js';",
        "parentPort.postMessage(greet('thread'));",
      ].join('\n'),
      'common/shared.js': SHARED,
    });
    const out = join(root, 'dist', 'bundle', 'cli');
    const files = await bundleCli({ compiled: join(root, 'dist', 'src'), out });
    expect(files).to.include.members(['main.js', 'x-thread.js']);
    expect(readdirSync(out).sort()).to.deep.equal([...files].sort());
    // The command is in a chunk main.js only imports when asked for.
    expect(readFileSync(join(out, 'main.js'), 'utf8')).to.not.include('LAZY COMMAND RAN');
    const run = (what: string) =>
      spawnSync(process.execPath, [join(out, 'main.js'), what], { encoding: 'utf8' });
    const thread = run('thread');
    expect([thread.status, thread.stdout, thread.stderr]).to.deep.equal([
      0,
      'hello from main; hello from thread\n',
      '',
    ]);
    const command = run('command');
    expect([command.status, command.stdout]).to.deep.equal([0, 'LAZY COMMAND RAN\n']);
  });

  it('globs through tinyglobby with the one picomatch it bundled (none read from node_modules)', async () => {
    const root = compiledTree({
      'cli/main.js': [
        "import { createRequire } from 'node:module';",
        "import { globSync } from 'tinyglobby';",
        "const found = globSync('*.dmp', { cwd: process.argv[2] });",
        "const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('picomatch'));",
        'console.log(JSON.stringify({ found, loaded }));',
      ].join('\n'),
    });
    const dumps = makeTempDir('bundle-glob');
    for (const name of ['a.dmp', 'b.dmp', 'c.txt']) writeFileSync(join(dumps, name), '');
    const out = join(root, 'dist', 'bundle', 'cli');
    await bundleCli({ compiled: join(root, 'dist', 'src'), out });
    const run = spawnSync(process.execPath, [join(out, 'main.js'), dumps], { encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    const { found, loaded } = JSON.parse(run.stdout) as { found: string[]; loaded: string[] };
    expect([found.sort(), loaded]).to.deep.equal([['a.dmp', 'b.dmp'], []]);
  });

  it('leaves the debugger packages as imports from node_modules', async () => {
    const root = compiledTree({
      'cli/main.js': [
        "export async function engine() { return (await import('execa')).execa; }",
        "export async function queue() { return (await import('bullmq')).Queue; }",
      ].join('\n'),
    });
    const out = join(root, 'dist', 'bundle', 'cli');
    await bundleCli({ compiled: join(root, 'dist', 'src'), out });
    const text = readdirSync(out)
      .map((file) => readFileSync(join(out, file), 'utf8'))
      .join('\n');
    expect(text).to.match(/import\(\s*["']execa["']\s*\)/);
    expect(text).to.match(/import\(\s*["']bullmq["']\s*\)/);
  });

  it('refuses a package it was not told to inline, naming it, and leaves no bundle', async () => {
    const root = compiledTree({
      'cli/main.js': "import { expect } from 'chai';\nexpect(1).to.equal(1);\n",
    });
    const out = join(root, 'dist', 'bundle', 'cli');
    let message = '';
    await bundleCli({ compiled: join(root, 'dist', 'src'), out }).catch((error: unknown) => {
      message = String(error);
    });
    expect(message).to.match(/took in chai: add each to INLINED .* or EXTERNAL/);
    expect(existsSync(out)).to.equal(false);
  });

  it('says to run tsc first when the compiled entry is missing', async () => {
    const root = makeTempDir('bundle');
    let message = '';
    await bundleCli({ compiled: join(root, 'dist', 'src'), out: join(root, 'out') }).catch(
      (error: unknown) => {
        message = String(error);
      },
    );
    expect(message).to.match(/cli\/main\.js is missing: run tsc/);
  });
});
