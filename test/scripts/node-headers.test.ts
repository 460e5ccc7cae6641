// scripts/node-headers.sh: npm_config_nodedir reaches the npm commands that build node-pty and
// nothing else; sourcing it exports nothing into the user's shell (a later `npm view` or `npm run`
// must not see the variable: npm warns `Unknown env config "nodedir"` on every such command).
// A stand-in `npm` on PATH (a real shell script) reports what it was given.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'node-headers.sh');
const NODE_PREFIX = resolve(process.execPath, '..', '..');
const HEADERS_HERE = existsSync(join(NODE_PREFIX, 'include', 'node'));

function bash(script: string): string {
  const bin = makeTempDir('fakenpm');
  writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "npm $1 nodedir=${npm_config_nodedir:-}"\n');
  chmodSync(join(bin, 'npm'), 0o755);
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` };
  delete env['npm_config_nodedir'];
  return execFileSync('bash', ['-c', script], { env, cwd: REPO_ROOT, encoding: 'utf8' });
}

describe('scripts/node-headers.sh', () => {
  it('sourced: exports nothing, and gives the headers to npm ci/install/rebuild only', function () {
    if (!HEADERS_HERE) this.skip(); // this node ships no include/node: nothing to point at
    const out = bash(
      `source ${SCRIPT} && npm ci && npm rebuild node-pty && npm view execa && env | grep -c '^npm_config_nodedir=' || true`,
    );
    expect(out.split('\n')).to.deep.equal([
      `npm ci nodedir=${NODE_PREFIX}`,
      `npm rebuild nodedir=${NODE_PREFIX}`,
      'npm view nodedir=',
      '0',
      '',
    ]);
  });

  it('run with a command: sets the headers for that command only', function () {
    if (!HEADERS_HERE) this.skip();
    const out = bash(`${SCRIPT} npm ci; env | grep -c '^npm_config_nodedir=' || true`);
    expect(out).to.equal(`npm ci nodedir=${NODE_PREFIX}\n0\n`);
  });

  it('keeps a nodedir the user already chose', () => {
    const out = bash(`npm_config_nodedir=/opt/node ${SCRIPT} npm ci`);
    expect(out).to.equal('npm ci nodedir=/opt/node\n');
  });
});
