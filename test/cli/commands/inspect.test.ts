// `inspect` on dumps with very many threads (text mode once died with "Maximum call stack size
// exceeded" at 20,000 threads, from `lines.push(...formatStacks(dump))`), the default bound on
// the stacks of non-crashing threads and `--all-threads`, and `--json` over several files written
// one dump at a time (the same envelope as before, never built whole).
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDump } from '../../../src/report/inspect/inspect-json.js';
import { formatText } from '../../../src/cli/commands/inspect-text.js';
import { DEFAULT_OTHER_THREADS } from '../../../src/processor/walk-threads.js';
import { runCli } from '../../helpers/cli.js';
import { manyThreadsDump } from '../../helpers/hostile-dumps.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

describe('inspect on many threads and many files', function () {
  this.timeout(180_000);
  let many = '';

  before(() => {
    many = join(makeTempDir('many-threads'), 'threads.dmp');
    writeFileSync(many, manyThreadsDump(20_000));
  });

  it('text mode over 20,000 threads with --all-threads: every stack printed, no stack overflow', async () => {
    const run = await runCli(['inspect', many, '--all-threads']);
    expect(run.stderr).to.not.match(/Maximum call stack/);
    expect(run.code).to.equal(0);
    expect(run.stdout.match(/^ {2}stack of thread /gm)).to.have.length(20_000);
  });

  it('formatText of 20,000 walked threads with deep stacks: no spread of the lines into a call', async () => {
    const dump = await inspectDump(many, { threads: 'all', otherThreads: null });
    if (!dump.ok) throw new Error(dump.error.message);
    // Each thread's one walked frame repeated: 20,000 threads of 12 frames is 280,000 lines,
    // past what a spread into push() can take as arguments.
    for (const thread of dump.threads) {
      const stack = thread.stack;
      if (stack === undefined) continue;
      const frame = stack.frames[0];
      if (frame !== undefined)
        stack.frames = Array.from({ length: 12 }, (_, index) => ({ ...frame, index }));
    }
    const text = formatText(dump);
    expect(text.match(/^ {2}stack of thread /gm)).to.have.length(20_000);
  });

  it('by default the stacks of other threads are bounded, and a warning says how many were left', async () => {
    const run = await runCli(['inspect', many]);
    expect(run.code).to.equal(0);
    expect(run.stdout.match(/^ {2}stack of thread /gm)).to.have.length(DEFAULT_OTHER_THREADS.count);
    expect(run.stdout).to.match(
      new RegExp(
        `stacks of ${20_000 - DEFAULT_OTHER_THREADS.count} more thread\\(s\\) not walked.*--all-threads`,
      ),
    );
    expect(run.stdout.match(/^ {2}threads +20000$/m)).to.not.equal(null);
  });

  it('--json over several files: one valid envelope, each dump as inspectDump gives it', async () => {
    const files = [join(EXAMPLES, 'av-write-a.dmp'), many, join(EXAMPLES, 'cpp-throw.dmp')];
    const run = await runCli(['inspect', '--json', '--no-stacks', ...files]);
    expect(run.code).to.equal(0);
    const envelope = JSON.parse(run.stdout) as { schemaVersion: number; dumps: unknown[] };
    expect(envelope.schemaVersion).to.equal(1);
    expect(envelope.dumps).to.have.length(3);
    const expected = await inspectDump(files[0]!, { threads: 'none' });
    const got = envelope.dumps[0] as typeof expected;
    expect({ ...got, bytesRead: 0 }).to.deep.equal({ ...expected, bytesRead: 0 });
    expect(run.stdout.startsWith('{\n  "schemaVersion": 1,\n  "dumps": [\n    {\n')).to.equal(true);
  });
});
