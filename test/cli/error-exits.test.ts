// Exit codes and messages at the failure paths people meet (issue 29 item 3), from the real CLI
// in a child process: a read-only --out, an unreadable input folder, a path that names nothing,
// Ctrl-C while `watch -w NAME` waits. As root every folder is writable and readable, so those two
// run as the unprivileged user `nobody` (uid 65534), as test/analyze/special-inputs.test.ts does.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT, wineEnv, wineRigReady } from '../helpers/wine.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');
const TSX = pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** The CLI as `nobody` when running as root (as anyone else, the chmod does the same). */
function runAsUser(args: readonly string[], scratch: string) {
  const root = process.getuid?.() === 0;
  return spawnSync(
    process.execPath,
    ['--import', TSX, join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'), ...args],
    {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, HOME: scratch, TMPDIR: scratch },
      timeout: 120_000,
      ...(root ? { uid: 65534, gid: 65534 } : {}),
    },
  );
}

/** A folder `nobody` may use, inside the run's temp root (opened for it while the test runs). */
function sharedDir(label: string): { dir: string; restore: () => void } {
  const dir = makeTempDir(label);
  chmodSync(dir, 0o777);
  const runRoot = dirname(dir);
  const mode = statSync(runRoot).mode & 0o777;
  chmodSync(runRoot, mode | 0o111);
  return { dir, restore: () => chmodSync(runRoot, mode) };
}

describe('exit codes and messages on the failure paths', function () {
  this.timeout(180_000);

  it('analyze /nonexistent: one message, exit 1 (a missing input, as the README table says)', async () => {
    const run = await runCli(['analyze', '/nonexistent', '--engine', 'builtin']);
    expect(run.code).to.equal(1);
    const errors = run.stderr.split('\n').filter((l) => /cdb-harness: |warning/.test(l));
    expect(errors).to.deep.equal(['cdb-harness: no such file or folder: "/nonexistent"']);
  });

  it('--out on an existing read-only folder: a clear message before anything runs, exit 2', () => {
    const { dir, restore } = sharedDir('ro-out');
    try {
      const out = join(dir, 'RO');
      mkdirSync(out);
      chmodSync(out, 0o555);
      const run = runAsUser(['analyze', EXAMPLE, '--engine', 'builtin', '--out', out], dir);
      expect(run.status, run.stderr).to.equal(2);
      expect(run.stderr).to.not.match(/EACCES: permission denied, open/);
      expect(run.stderr).to.not.match(/^engine:/m);
      expect(run.stderr).to.match(
        /^cdb-harness: --out .*RO: this folder cannot be written into \(EACCES: read-only or not yours\); pick another --out$/m,
      );
    } finally {
      restore();
    }
  });

  it('an input folder that cannot be read: says so, exit 1 (not "no dump files found")', () => {
    const { dir, restore } = sharedDir('unreadable-in');
    try {
      const locked = join(dir, 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0o000);
      const run = runAsUser(
        ['analyze', locked, '--engine', 'builtin', '--out', join(dir, 'o')],
        dir,
      );
      chmodSync(locked, 0o700);
      expect(run.status, run.stderr).to.equal(1);
      expect(run.stderr).to.include(
        `cdb-harness: cannot read the folder "${locked}": permission denied (EACCES); check its permissions and owner`,
      );
      expect(run.stderr).to.not.match(/no dump files found|matched no dump file/);
    } finally {
      restore();
    }
  });

  it('Ctrl-C while `watch -w NAME` waits: exit 130, not a process-listing error', async function () {
    if (!wineRigReady()) this.skip();
    const out = join(makeTempDir('watch-wait'), 'out');
    let sent = false;
    const run = await runCli(
      ['watch', '-w', 'never-started.exe', '--engine', 'winedbg', '--out', out],
      {
        env: wineEnv(),
        onStderr: (soFar, child) => {
          if (!sent && soFar.includes('Waiting for a process named never-started.exe')) {
            sent = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(sent).to.equal(true);
    expect(run.code, run.stderr).to.equal(130);
    expect(run.stderr).to.not.match(/could not list processes/);
  });
});
