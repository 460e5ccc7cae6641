// Failed system calls in the harness's words (issue 30 item 13: raw Node messages surfaced, e.g.
// `cannot read adir: EISDIR: illegal operation on a directory, read`). Each class is made with a
// real condition, not a constructed error object: tests run as root, where chmod stops nothing, so
// a path through a regular file (ENOTDIR), a folder read as a file (EISDIR), a link loop (ELOOP),
// /dev/full (ENOSPC), a FIFO with no reader (ENXIO) and a low open-file limit (EMFILE).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage, errorToJSON, failureCause } from '../src/errors.js';
import { runCli } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp-dir.js';
import { REPO_ROOT } from './helpers/wine.js';

/** What `action` throws (it must throw). */
function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

// Node's raw form: `ENOTDIR: not a directory, open '…'`.
const RAW_RE = /\bE[A-Z]+: [a-z][^,]*, \w+/;

describe('failed system calls, in words', () => {
  let dir = '';
  before(() => {
    dir = makeTempDir('syserr');
    writeFileSync(join(dir, 'afile'), 'x');
    mkdirSync(join(dir, 'adir'));
    symlinkSync('loop', join(dir, 'loop'));
    spawnSync('mkfifo', [join(dir, 'fifo')]);
  });

  const cases: [string, () => unknown, RegExp][] = [
    [
      'ENOTDIR: a path through a regular file',
      () => readFileSync(join(dir, 'afile', 'x.dmp')),
      /^cannot open .*afile\/x\.dmp: a part of the path is a file, not a folder \(ENOTDIR\)$/,
    ],
    [
      'EISDIR: a folder read as a file (Node names no path)',
      () => readFileSync(join(dir, 'adir')),
      /^cannot read: it is a folder, not a file \(EISDIR\)$/,
    ],
    [
      'ELOOP: a link that points at itself',
      () => readFileSync(join(dir, 'loop')),
      /^cannot open .*loop: too many symbolic links .*\(ELOOP\)$/,
    ],
    [
      'ENOENT: a name that names nothing',
      () => readFileSync(join(dir, 'missing')),
      /^cannot open .*missing: no such file or folder \(ENOENT\)$/,
    ],
    [
      'EEXIST: a folder made twice',
      () => mkdirSync(join(dir, 'adir')),
      /^cannot create .*adir: something is already there \(EEXIST\)$/,
    ],
    [
      'ENXIO: a FIFO opened for writing with no reader',
      () => openSync(join(dir, 'fifo'), constants.O_WRONLY | constants.O_NONBLOCK),
      /^cannot open .*fifo: no such device \(a FIFO with nobody at the other end, or a socket\) \(ENXIO\)$/,
    ],
    [
      'ENOSPC: a write to a full device',
      () => {
        const fd = openSync('/dev/full', 'w');
        try {
          writeSync(fd, 'x');
        } finally {
          closeSync(fd);
        }
      },
      /^cannot write: no space left on the device \(ENOSPC\); free some space or write elsewhere$/,
    ],
  ];
  for (const [what, action, expected] of cases) {
    it(what, () => {
      const error = thrown(action);
      expect(errorMessage(error)).to.match(expected);
      expect(errorMessage(error)).to.not.match(RAW_RE);
      expect(errorToJSON(error).code, 'a system error is IO, not INTERNAL').to.equal('IO');
    });
  }

  it('EMFILE: too many open files says what to do (a child with ulimit -n 64)', () => {
    const errors = pathToFileURL(join(REPO_ROOT, 'src', 'errors.ts')).href;
    const tsx = pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const code = [
      "import { openSync } from 'node:fs';",
      `const { errorMessage } = await import(${JSON.stringify(errors)});`,
      'try { for (;;) openSync(process.execPath, "r"); }',
      'catch (error) { process.stdout.write(errorMessage(error)); }',
    ].join('\n');
    const run = spawnSync(
      'sh',
      [
        '-c',
        'ulimit -n 64 && exec "$0" "$@"',
        process.execPath,
        '--import',
        tsx,
        '--input-type=module',
        '-e',
        code,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stdout).to.match(
      /^cannot open .*: too many open files in this process \(EMFILE\); raise the limit \(ulimit -n\) or run fewer --jobs$/,
    );
  });

  it('a message that names the path itself takes the cause alone', () => {
    const error = thrown(() => readFileSync(join(dir, 'adir')));
    expect(failureCause(error)).to.equal('it is a folder, not a file (EISDIR)');
    expect(failureCause(new Error('plain'))).to.equal('plain');
  });

  it('the CLI: parse of a folder and inspect through a file, exit 1, no raw text', async () => {
    const parse = await runCli(['parse', join(dir, 'adir')]);
    expect(parse.code).to.equal(1);
    expect(parse.stderr.trim()).to.equal(
      `cdb-harness: cannot read ${join(dir, 'adir')}: it is a folder, not a file (EISDIR)`,
    );
    const inspect = await runCli(['inspect', '--json', join(dir, 'afile', 'x.dmp')]);
    expect(inspect.code).to.equal(1);
    expect(inspect.stderr).to.include('a part of the path is a file, not a folder (ENOTDIR)');
    expect(inspect.stderr + inspect.stdout).to.not.match(RAW_RE);
  });
});
