// How --relative-paths shows dump paths: relative to the deepest input folder that holds them,
// by file name otherwise; the summary's every path through it, the data left as it was.
import { expect } from 'chai';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { AnalyzeSummary } from '../../../src/report/analyze/analyze-record.js';
import { relativeToRoots, shownSummary } from '../../../src/report/analyze/shown-paths.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const HOME = join(sep, 'home', 'ana');

describe('shown paths (--relative-paths)', () => {
  const show = relativeToRoots([join(HOME, 'crashes'), join(HOME, 'crashes', 'app')]);

  it('relative to the deepest input folder holding the dump, else the file name', () => {
    expect(show(join(HOME, 'crashes', 'svc', '1.dmp'))).to.equal(join('svc', '1.dmp'));
    expect(show(join(HOME, 'crashes', 'app', 'x', '2.dmp'))).to.equal(join('x', '2.dmp'));
    expect(show(join(HOME, 'crashes-old', '3.dmp'))).to.equal('3.dmp');
    expect(show(join(HOME, 'elsewhere', '4.dmp'))).to.equal('4.dmp');
  });

  it('maps every path of the summary, and only those', () => {
    const summary = {
      failures: [{ file: join(HOME, 'crashes', 'bad.dmp'), code: 'BAD_DUMP', message: 'm' }],
      quarantined: [],
      buckets: [
        {
          id: 'b',
          signature: 's',
          count: 1,
          representative: join(HOME, 'crashes', 'svc', '1.dmp'),
          files: [join(HOME, 'crashes', 'svc', '1.dmp')],
        },
      ],
    } as unknown as AnalyzeSummary;
    const shown = shownSummary(summary, show);
    expect(shown.failures[0]?.file).to.equal('bad.dmp');
    expect(shown.buckets[0]?.representative).to.equal(join('svc', '1.dmp'));
    expect(shown.buckets[0]?.files).to.deep.equal([join('svc', '1.dmp')]);
    expect(summary.failures[0]?.file).to.equal(join(HOME, 'crashes', 'bad.dmp'));
  });
});

describe('analyze --relative-paths, as typed', function () {
  this.timeout(120_000);

  it('report.html and the text show paths under the input folder; records.ndjson keeps them whole', async () => {
    // A user folder the report must not carry: <tmp>/home/ana-<random>/crashes/svc/….
    const home = join(makeTempDir('relative-paths'), 'home', 'ana');
    const crashes = join(home, 'crashes');
    mkdirSync(join(crashes, 'svc'), { recursive: true });
    for (const name of ['av-write-a.dmp', 'av-write-b.dmp', 'clr-raise.dmp']) {
      copyFileSync(join(REPO_ROOT, 'examples', 'dumps', name), join(crashes, 'svc', name));
    }
    const out = join(home, 'out');
    const run = await runCli(
      ['analyze', 'crashes', '--engine', 'builtin', '--out', out, '--relative-paths'],
      { cwd: home },
    );
    expect(run.code, run.stderr).to.equal(0);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).to.not.include(home);
    expect(html).to.include(JSON.stringify(join('svc', 'av-write-a.dmp')).slice(1, -1));
    // (The output folder is named as given; the dumps are not.)
    expect(run.stdout).to.not.include(crashes);
    const records = readFileSync(join(out, 'records.ndjson'), 'utf8');
    expect(records).to.include(JSON.stringify(join(crashes, 'svc', 'av-write-a.dmp')));
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).to.include(crashes);
  });

  it('is refused, exit 2, with --queue, --merge and --rebucket (never silently ignored)', async () => {
    const out = makeTempDir('relative-elsewhere');
    for (const [args, named] of [
      [['analyze', 'x', '--queue', 'redis://127.0.0.1:1', '--relative-paths'], '--queue'],
      [['analyze', '--merge', out, '--out', join(out, 'm'), '--relative-paths'], '--merge'],
      [['analyze', '--rebucket', out, '--relative-paths'], '--rebucket'],
    ] as const) {
      const run = await runCli([...args], { cwd: out });
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stderr).to.include(`--relative-paths goes with a local analyze`);
      expect(run.stderr).to.include(`not with ${named}`);
    }
  });
});
