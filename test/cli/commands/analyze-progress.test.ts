// What `analyze` prints while it runs: counts in words that agree in number, a progress line
// redrawn with escape sequences only on a terminal that can redraw (a real pty; TERM=dumb is
// one that cannot), and how to continue after Ctrl-C.
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as NodePty from '@lydell/node-pty';
import { resumeHint } from '../../../src/cli/commands/analyze-progress.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const ONE_DUMP = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');

/** The CLI on a real pty (node-pty itself: raw bytes, escapes kept), with this TERM. */
function analyzeOnPty(term: string): Promise<string> {
  const pty = createRequire(import.meta.url)('@lydell/node-pty') as typeof NodePty;
  const out = makeTempDir('progress');
  const child = pty.spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'),
      'analyze',
      join(REPO_ROOT, 'examples', 'dumps'),
      '--engine',
      'builtin',
      '--out',
      join(out, 'o'),
    ],
    { cwd: REPO_ROOT, env: { ...process.env, TERM: term }, cols: 200, rows: 40 },
  );
  let raw = '';
  child.onData((data) => (raw += data));
  return new Promise((resolve) => child.onExit(() => resolve(raw)));
}

describe('analyze progress output', function () {
  this.timeout(120_000);

  it('says "1 file", not "1 files"', async () => {
    const run = await runCli([
      'analyze',
      ONE_DUMP,
      '--engine',
      'builtin',
      '--out',
      join(makeTempDir('one'), 'o'),
    ]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(/^analysing 1 file into /m);
  });

  it('says how many analyze threads help and why, and refuses a --threads that is not a count', async () => {
    const dumps = join(REPO_ROOT, 'examples', 'dumps');
    const args = (threads: string) => [
      'analyze',
      dumps,
      '--engine',
      'builtin',
      '--threads',
      threads,
      '--out',
      join(makeTempDir('threads'), 'o'),
    ];
    const one = await runCli(args('1'));
    expect(one.code, one.stderr).to.equal(0);
    expect(one.stderr).to.match(
      /^threads: 1 analyze thread besides the main one \(--threads 1\)$/m,
    );
    const none = await runCli(args('0'));
    expect(none.code, none.stderr).to.equal(0);
    expect(none.stderr).to.match(/^threads: none \(--threads 0\)$/m);
    const bad = await runCli(args('two'));
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('--threads must be a whole number >= 0, got "two"');
  });

  it('redraws with escapes on a terminal, and writes plain lines when TERM=dumb', async () => {
    const xterm = await analyzeOnPty('xterm-256color');
    expect(xterm).to.include('\x1b[2K'); // the redraw path was taken: a real tty
    const dumb = await analyzeOnPty('dumb');
    expect(dumb).to.match(/ok \d+ /);
    expect(dumb).to.not.include('\x1b[');
  });

  it('tells how to continue after an interruption, quoting what the shell needs', () => {
    expect(resumeHint(['crashes', 'more dumps/x.dmp'], 'triage')).to.equal(
      'to continue, run: cdb-harness analyze crashes "more dumps/x.dmp" --out triage --resume',
    );
  });
});
