// ProcDump and cdb command lines as people type them (issue 29 item 1): the golden ProcDump lines
// of test/golden/procdump/ through the real command definitions, and the refusals from the real
// CLI in a child process, each naming what does the same here.
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import {
  heapTrendOptionsFromCli,
  registerHeapTrend,
  type HeapTrendCliOptions,
} from '../../src/cli/commands/heap-trend.js';
import {
  registerWatch,
  watchOptionsFromCli,
  type WatchCliOptions,
} from '../../src/cli/commands/watch.js';
import { runCli } from '../helpers/cli.js';
import { parseDumpCli } from '../helpers/parse-dump-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

/** Parses a `watch` command line with the real definition (ProcDump rewrite included). */
function watchOptions(argv: readonly string[]) {
  const root = new Command('cdb-harness').exitOverride();
  registerWatch({ program: root, setExitCode: () => undefined });
  const watch = root.commands.find((c) => c.name() === 'watch');
  let result: ReturnType<typeof watchOptionsFromCli> | undefined;
  watch?.action((program: string[], cli: WatchCliOptions) => {
    result = watchOptionsFromCli(cli, program, { CDB_PATH: '' }, new Date(2025, 10, 21, 12, 0, 0));
  });
  root.parse(['node', 'cdb-harness', 'watch', ...argv]);
  if (result === undefined) throw new Error('watch action did not run');
  return result;
}

function heapTrendTarget(argv: readonly string[]) {
  const root = new Command('cdb-harness').exitOverride();
  registerHeapTrend({ program: root, setExitCode: () => undefined });
  const command = root.commands.find((c) => c.name() === 'heap-trend');
  let result: ReturnType<typeof heapTrendOptionsFromCli> | undefined;
  command?.action((target: string | undefined, cli: HeapTrendCliOptions) => {
    result = heapTrendOptionsFromCli(cli, { CDB_PATH: '' }, 'linux', target);
  });
  root.parse(['node', 'cdb-harness', 'heap-trend', ...argv]);
  if (result === undefined) throw new Error('heap-trend action did not run');
  return result.target;
}

// `procdump -accepteula -e 1 -f "" -ma SerialSlipToTunService.exe -w`: words, quotes removed
const WORD_RE = /"([^"]*)"|(\S+)/g;

function words(line: string): string[] {
  return [...line.matchAll(WORD_RE)].map((m) => m[1] ?? m[2] ?? '');
}

/** The golden ProcDump command lines whose exact text the capture shows. */
function goldenProcDumpLines(): string[] {
  const dir = join(REPO_ROOT, 'test', 'golden', 'procdump');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      const golden = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        entries: { command: string }[];
      };
      return golden.entries.map((e) => e.command);
    })
    .filter((c) => c.startsWith('procdump ') && !c.includes('...'));
}

describe('ProcDump and cdb habits, as typed', function () {
  this.timeout(120_000);

  it('runs the golden ProcDump lines as `watch`: -accepteula ignored, -f "" matches all, bare -w', () => {
    const lines = goldenProcDumpLines();
    expect(lines).to.have.length(2);
    const v9 = lines.find((l) => l.includes('-accepteula')) ?? '';
    const o = watchOptions([...words(v9).slice(1), '--engine', 'winedbg']);
    expect(o.target).to.deep.equal({ kind: 'wait', name: 'SerialSlipToTunService.exe' });
    // ProcDump shows `-f ""` as the include `*`: everything matches, so nothing is left out.
    expect(o.include).to.deep.equal([]);
    expect(o.selection?.allFirstChance).to.equal(true);
    expect(o.dumpKind).to.equal('full');
    const lld = lines.find((l) => l.includes('DoesNotExist')) ?? '';
    const pid = watchOptions([...words(lld).slice(1), '--engine', 'winedbg']);
    expect(pid.target).to.deep.equal({ kind: 'pid', pid: 8012 });
    expect(pid.include).to.deep.equal(['DoesNotExist']);
  });

  it('watch -x DIR app.exe ARGS launches app.exe with its arguments, dumps into DIR', () => {
    const o = watchOptions(['-e', '1', '-ma', '-x', '/tmp/d', 'app.exe', '--port', '8080']);
    expect(o.target).to.deep.equal({
      kind: 'launch',
      program: 'app.exe',
      args: ['--port', '8080'],
    });
    expect(o.outDir).to.equal('/tmp/d');
    expect(watchOptions(['-o', '-p', '12']).target).to.deep.equal({ kind: 'pid', pid: 12 });
  });

  it('dump: -accepteula ignored, -o overwrites, NAME -w waits for NAME', () => {
    const typed = parseDumpCli([
      '-accepteula',
      '-ma',
      '-o',
      '1234',
      '/tmp/d',
      '--engine',
      'winedbg',
    ]);
    expect(typed).to.deep.equal(
      parseDumpCli([
        '--full',
        '--overwrite',
        '--pid',
        '1234',
        '--out',
        '/tmp/d',
        '--engine',
        'winedbg',
      ]),
    );
    expect(parseDumpCli(['-ma', 'app.exe', '-w', '--engine', 'winedbg']).target).to.deep.equal({
      waitFor: 'app.exe',
    });
    expect(parseDumpCli(['-w', 'app.exe', '-ma', '--engine', 'winedbg']).target).to.deep.equal({
      waitFor: 'app.exe',
    });
  });

  it('heap-trend takes a bare PID or NAME like dump, and -w', () => {
    expect(heapTrendTarget(['1234'])).to.deep.equal({ pid: 1234 });
    expect(heapTrendTarget(['w3wp'])).to.deep.equal({ name: 'w3wp' });
    expect(heapTrendTarget(['-w', 'app.exe'])).to.deep.equal({ waitFor: 'app.exe' });
    expect(heapTrendTarget(['app.exe', '-w', '--samples', '3'])).to.deep.equal({
      waitFor: 'app.exe',
    });
    expect(() => heapTrendTarget(['1234', '--pid', '5'])).to.throw(/exactly one target/);
  });

  it('refuses -wer, dump -x and cdb -c, naming what does the same here (exit 2)', async () => {
    const dir = makeTempDir('habits');
    const wer = await runCli(['dump', '-ma', '-wer', '1234', dir]);
    expect(wer.code).to.equal(2);
    expect(wer.stderr).to.match(
      /^cdb-harness: -wer \(ProcDump: queue the dump to Windows Error Reporting\)/,
    );
    const x = await runCli(['dump', '-accepteula', '-x', dir, 'app.exe']);
    expect(x.code).to.equal(2);
    expect(x.stderr).to.include(`cdb-harness watch -x ${dir} app.exe`);
    const c = await runCli(['analyze', '-z', 'crash.dmp', '-c', '!analyze -v;q']);
    expect(c.code).to.equal(2);
    expect(c.stderr).to.match(/-c \(cdb: commands to run\) is --script FILE here/);
    const ci = await runCli(['inspect', '-c', 'k', 'crash.dmp']);
    expect(ci.code).to.equal(2);
    expect(ci.stderr).to.match(/inspect runs no debugger/);
  });

  it('inspect -i DIR is cdb -i: the images in DIR unwind the stack, as --image-path does', async () => {
    const dump = join(REPO_ROOT, 'examples', 'dumps', 'symcrash.dmp');
    const images = join(REPO_ROOT, 'examples', 'symbols');
    const typed = await runCli(['inspect', '--brief', '-i', images, '-z', dump]);
    const long = await runCli(['inspect', '--brief', '--image-path', images, dump]);
    const none = await runCli(['inspect', '--brief', dump]);
    expect(typed.code).to.equal(0);
    expect(typed.stdout).to.equal(long.stdout);
    expect(typed.stdout).to.include('[cfi]');
    expect(none.stdout).to.not.equal(typed.stdout);
  });
});
