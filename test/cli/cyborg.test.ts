// `--cyborg FILE` as a user types it (minidump-stackwalk's habit): the text on stdout as without
// it, the JSON that --json prints written to FILE, on inspect, analyze, heap-trend and watch (a
// real .NET program watched through its diagnostics port); refused with --json, and with a FILE
// that cannot be written before anything is done.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '../../src/report/schemas.js';
import { runCli } from '../helpers/cli.js';
import {
  nativeDotnetSkipReason,
  startNativeDotnet,
  killNativeDotnets,
} from '../helpers/dotnet-native.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

const DUMPS = join(REPO_ROOT, 'examples', 'dumps');
const AV = join(DUMPS, 'av-write-a.dmp');

describe('--cyborg FILE: text on stdout, JSON in FILE', function () {
  this.timeout(180_000);
  afterEach(() => killNativeDotnets());

  it('inspect DUMP --cyborg FILE: the triage text on stdout, the --json document in FILE', async () => {
    const dir = makeTempDir('cyborg-inspect');
    const file = join(dir, 'inspect.json');
    const run = await runCli(['inspect', AV, '--cyborg', file]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^.*av-write-a\.dmp: minidump/);
    expect(run.stdout).to.match(/exception +0xc0000005/);
    const json = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    expect(validate('inspect', json).errors).to.deep.equal([]);
    const plain = await runCli(['inspect', AV, '--json']);
    expect(json).to.deep.equal(JSON.parse(plain.stdout));
  });

  it('analyze DIR --cyborg FILE: the summary text on stdout, summary.json in FILE', async () => {
    const dir = makeTempDir('cyborg-analyze');
    const file = join(dir, 'summary-copy.json');
    const out = join(dir, 'out');
    const run = await runCli([
      'analyze',
      DUMPS,
      '--engine',
      'builtin',
      '--out',
      out,
      '--cyborg',
      file,
    ]);
    expect(run.code, run.stderr).to.be.oneOf([0, 4]);
    expect(run.stdout).to.match(/dumps analysed in/);
    expect(run.stdout).to.match(/^buckets \(/m);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.equal(
      JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')),
    );
  });

  it('heap-trend --from-dumps DIR --cyborg FILE: the summary on stdout, report.json in FILE', async () => {
    const dir = makeTempDir('cyborg-heap-trend');
    const file = join(dir, 'report-copy.json');
    const out = join(dir, 'out');
    const run = await runCli(['heap-trend', '--from-dumps', DUMPS, '--out', out, '--cyborg', file]);
    // The example dumps are mini dumps: no memory list, so the verdict is inconclusive (exit 1).
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stdout).to.match(/^Inconclusive: /m);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.equal(
      JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')),
    );
  });

  it('watch --pid PID --duration 3s --cyborg FILE: the summary on stdout, summary.json in FILE', async function () {
    const reason = nativeDotnetSkipReason();
    if (reason !== null) {
      console.log(`      skipped: ${reason}`);
      this.skip();
    }
    const target = await startNativeDotnet(['exceptions', '--acts', 'hold', '--hold', '60000']);
    await target.waitForLine(/^holding /);
    const dir = makeTempDir('cyborg-watch');
    const file = join(dir, 'watch.json');
    const out = join(dir, 'out');
    const run = await runCli(
      ['watch', '--pid', String(target.pid), '--duration', '3s', '--out', out, '--cyborg', file],
      { env: target.env },
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^0 exception\(s\), 0 dump\(s\) in /m);
    const summary = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    expect(validate('watchSummary', summary).errors).to.deep.equal([]);
    expect(summary).to.deep.equal(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
  });

  it('--json with --cyborg, and a FILE that cannot be written: exit 2, nothing done', async () => {
    const dir = makeTempDir('cyborg-refused');
    const out = join(dir, 'out');
    const both = await runCli([
      'analyze',
      AV,
      '--out',
      out,
      '--json',
      '--cyborg',
      join(dir, 'x.json'),
    ]);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.match(
      /^cdb-harness: --json prints the JSON instead of the text, --cyborg FILE writes it/m,
    );
    const missing = join(dir, 'no-such-folder', 'x.json');
    const nowhere = await runCli([
      'analyze',
      AV,
      '--engine',
      'builtin',
      '--out',
      out,
      '--cyborg',
      missing,
    ]);
    expect(nowhere.code).to.equal(2);
    expect(nowhere.stderr).to.match(
      /^cdb-harness: --cyborg .*x\.json: cannot write it \(.*\(ENOENT\)\)$/m,
    );
    expect(existsSync(out)).to.equal(false);
    const inspect = await runCli(['inspect', AV, '--cyborg', missing]);
    expect(inspect.code).to.equal(2);
    expect(inspect.stdout).to.equal('');
  });
});
