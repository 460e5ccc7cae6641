// What the CLI loads to answer: `--help` and `--version` load no command module, no workflow and
// not execa (about 100 modules that only the commands running a process need); `inspect` does not
// load execa either. Read from a module-load hook in a real child process running the CLI from
// source. Start-up time itself is measured by bench/cli-start.ts, not here.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

function loadedBy(args: readonly string[]): string[] {
  const dir = makeTempDir('loads');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    "export async function load(url, context, next) { process.stderr.write('LOADED ' + url + '\\n'); return next(url, context); }\n",
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      join(dir, 'register.mjs'),
      join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'),
      ...args,
    ],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  expect(run.status, run.stderr).to.equal(0);
  return run.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED '))
    .map((line) => line.slice('LOADED '.length));
}

const execaModules = (urls: string[]) => urls.filter((u) => u.includes('/node_modules/execa/'));

describe('cli/main.ts start-up', function () {
  this.timeout(60_000);

  it('--help loads no command module, no workflow and not execa', () => {
    const urls = loadedBy(['--help']);
    expect(urls.some((u) => u.endsWith('/src/cli/main.ts'))).to.equal(true);
    expect(urls.filter((u) => /\/src\/cli\/commands\/(?!index\.ts)/.test(u))).to.deep.equal([]);
    expect(urls.filter((u) => u.includes('/src/workflows/'))).to.deep.equal([]);
    expect(execaModules(urls)).to.deep.equal([]);
  });

  it('inspect loads the dump reader but not execa', () => {
    const urls = loadedBy([
      'inspect',
      '--json',
      join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'),
    ]);
    expect(urls.some((u) => u.includes('/src/minidump/'))).to.equal(true);
    expect(execaModules(urls)).to.deep.equal([]);
  });
});
