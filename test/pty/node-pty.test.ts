// What a user is told when node-pty cannot be loaded, from the real errors: the real package copied
// without its native build (what npm leaves when node-gyp could not fetch Node's headers and the
// optional build failed silently), and the real package missing altogether.
import { expect } from 'chai';
import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { nodePtyLoadFailure } from '../../src/pty/node-pty.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

function requireErrorFrom(project: string): unknown {
  try {
    createRequire(join(project, 'index.js'))('node-pty');
  } catch (error) {
    return error;
  }
  throw new Error('node-pty loaded: the test needs it not to');
}

describe('node-pty load failures', () => {
  it('says the native part was never built, why, and the rebuild command with local headers', () => {
    const project = makeTempDir('nopty');
    // node-pty as npm leaves it after a failed optional build: the package, no build/ folder.
    cpSync(join(REPO_ROOT, 'node_modules', 'node-pty'), join(project, 'node_modules', 'node-pty'), {
      recursive: true,
      filter: (path) => !path.includes(`${sep}node-pty${sep}build`),
    });
    const error = requireErrorFrom(project);
    // A node prefix that has the headers, and one that has not.
    const withHeaders = makeTempDir('nodeprefix');
    mkdirSync(join(withHeaders, 'include', 'node'), { recursive: true });
    const told = nodePtyLoadFailure(error, withHeaders);
    expect(told).to.match(/native part was never built/);
    expect(told).to.match(/node-gyp, which needs Node's C headers/);
    expect(told).to.include(`npm_config_nodedir=${withHeaders} npm rebuild node-pty`);
    expect(told).to.match(/--engine builtin/);
    const without = nodePtyLoadFailure(error, makeTempDir('nodeprefix'));
    expect(without).to.match(/never built/);
    expect(without).to.include('https://nodejs.org');
    expect(without).to.include(process.version);
  });

  it('says how to install node-pty when the package is absent', () => {
    const told = nodePtyLoadFailure(requireErrorFrom(makeTempDir('nopty')));
    expect(told).to.match(/not installed: npm install node-pty/);
    expect(told).to.not.match(/never built/);
  });
});
