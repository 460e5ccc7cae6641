// The launcher in a clone where `npm ci` ran but no build yet (npm ci no longer builds: the
// package has `prepack`, not `prepare`, so that installing the tarball runs nothing): it says what
// to do instead of failing with ERR_MODULE_NOT_FOUND and a stack.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

describe('bin/cdb-harness.js', () => {
  it('in a clone with no dist/, says to run npm run build', () => {
    const clone = makeTempDir('clone');
    mkdirSync(join(clone, 'bin'));
    mkdirSync(join(clone, 'src', 'cli'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'bin', 'cdb-harness.js'), join(clone, 'bin', 'cdb-harness.js'));
    writeFileSync(join(clone, 'src', 'cli', 'main.ts'), '');
    writeFileSync(join(clone, 'package.json'), '{ "type": "module", "version": "9.8.7" }\n');
    const cli = join(clone, 'bin', 'cdb-harness.js');
    const run = spawnSync(process.execPath, [cli, 'inspect', 'x.dmp'], { encoding: 'utf8' });
    expect(run.status).to.equal(1);
    expect(run.stderr).to.match(/^cdb-harness: this clone has no build yet.*npm run build/);
    expect(run.stderr).to.not.match(/ERR_MODULE_NOT_FOUND|at .*:\d+/);
    // --version needs no build: it is read from package.json before anything is loaded.
    const version = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
    expect([version.status, version.stdout]).to.deep.equal([0, '9.8.7\n']);
  });

  it('the package runs no script on install: it builds before pack, not on prepare', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const hook of ['prepare', 'preinstall', 'install', 'postinstall']) {
      expect(pkg.scripts, hook).to.not.have.property(hook);
    }
    expect(pkg.scripts['prepack']).to.match(/npm run build/);
  });
});

describe('bin/cdb-harness.js when stdout fails', () => {
  it('stdout on a full device (/dev/full, ENOSPC): one line in the CLI’s words, exit 1, no stack', () => {
    const clone = makeTempDir('clone-full');
    mkdirSync(join(clone, 'bin'));
    mkdirSync(join(clone, 'dist', 'bundle', 'cli'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'bin', 'cdb-harness.js'), join(clone, 'bin', 'cdb-harness.js'));
    writeFileSync(join(clone, 'package.json'), '{ "type": "module", "version": "9.8.7" }\n');
    // A stand-in CLI: what it prints fills nothing, /dev/full refuses the first write.
    writeFileSync(
      join(clone, 'dist', 'bundle', 'cli', 'main.js'),
      [
        'export const failureCause = (error) => `words for ${error.code}`;',
        "export async function main() { process.stdout.write('x'.repeat(65536)); return 0; }",
      ].join('\n'),
    );
    const full = openSync('/dev/full', 'w');
    try {
      const run = spawnSync(process.execPath, [join(clone, 'bin', 'cdb-harness.js'), 'inspect'], {
        encoding: 'utf8',
        stdio: ['ignore', full, 'pipe'],
      });
      expect(run.status).to.equal(1);
      expect(run.stderr).to.equal(
        'cdb-harness: cannot write the standard output: words for ENOSPC\n',
      );
    } finally {
      closeSync(full);
    }
  });
});
