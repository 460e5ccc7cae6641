// What a user is told when node-pty cannot be loaded, from the real errors: the real package
// copied without its platform package (what `npm install --omit=optional` of the package alone,
// or a node_modules copied from another system, leaves), and the package missing altogether.
import { expect } from 'chai';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { NODE_PTY_PACKAGE, nodePtyLoadFailure } from '../../src/pty/node-pty.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

function requireErrorFrom(project: string): unknown {
  try {
    createRequire(join(project, 'index.js'))(NODE_PTY_PACKAGE);
  } catch (error) {
    return error;
  }
  throw new Error(`${NODE_PTY_PACKAGE} loaded: the test needs it not to`);
}

describe('node-pty load failures', () => {
  it('names the missing platform package and how npm comes to leave it out', () => {
    const project = makeTempDir('nopty');
    // The package itself, without @lydell/node-pty-<platform>-<arch> beside it.
    cpSync(
      join(REPO_ROOT, 'node_modules', ...NODE_PTY_PACKAGE.split('/')),
      join(project, 'node_modules', ...NODE_PTY_PACKAGE.split('/')),
      { recursive: true },
    );
    const told = nodePtyLoadFailure(requireErrorFrom(project));
    expect(told).to.include(`@lydell/node-pty-${process.platform}-${process.arch}`);
    expect(told).to.match(/--omit=optional/);
    expect(told).to.match(/run npm install again/);
    expect(told).to.match(/--engine builtin/);
  });

  it('says how to install node-pty when the package is absent', () => {
    const told = nodePtyLoadFailure(requireErrorFrom(makeTempDir('nopty')));
    expect(told).to.match(/not installed: .*npm install @lydell\/node-pty/);
    expect(told).to.not.match(/platform package|native part for this system/);
  });
});
