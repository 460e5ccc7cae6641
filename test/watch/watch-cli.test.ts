import { expect } from 'chai';
import { Command } from 'commander';
import {
  registerWatch,
  watchOptionsFromCli,
  type WatchCliOptions,
} from '../../src/cli/commands/watch.js';
import { parseDuration } from '../../src/units.js';
import { dumpOptionsFromCli } from '../../src/cli/commands/dump.js';

/** Parses argv with the real `watch` command definition, without running it. */
function parseWatch(argv: string[]): { cli: WatchCliOptions; program: string[] } {
  const root = new Command('cdb-harness').exitOverride();
  registerWatch({ program: root, setExitCode: () => undefined });
  const watch = root.commands.find((c) => c.name() === 'watch');
  let captured: { cli: WatchCliOptions; program: string[] } = { cli: {}, program: [] };
  watch?.action((program: string[], cli: WatchCliOptions) => {
    captured = { cli, program };
  });
  root.parse(['node', 'cdb-harness', 'watch', ...argv]);
  return captured;
}

const options = (argv: string[]) => {
  const { cli, program } = parseWatch(argv);
  return watchOptionsFromCli(cli, program, { CDB_PATH: '' }, new Date(2025, 10, 21, 12, 48, 59));
};

describe('watch command line', () => {
  it('takes ProcDump spellings: -e 1, -f, -n, -ma / -mm', () => {
    const o = options([
      '--pid',
      '1234',
      '-e',
      '1',
      '-f',
      'Timeout',
      '-f',
      'code:av',
      '-n',
      '3',
      '-mm',
      '--engine',
      'winedbg',
    ]);
    expect(o.selection?.allFirstChance).to.equal(true);
    expect(o.include).to.deep.equal(['Timeout', 'code:av']);
    expect(o.maxDumps).to.equal(3);
    expect(o.dumpKind).to.equal('mini');
    expect(options(['--pid', '1', '-ma', '--engine', 'winedbg']).dumpKind).to.equal('full');
    // `-e` alone: unhandled exceptions only, so no CLR first chances.
    expect(options(['--pid', '1', '-e', '--engine', 'winedbg']).selection?.clr).to.equal(false);
  });

  it('builds the selection, filters, limits and target; defaults to winedbg when no cdb is found', () => {
    const o = options([
      '--name',
      'w3wp',
      '--av',
      '--cpp',
      '--code',
      'stackoverflow',
      '--no-clr',
      '--exclude',
      'type:*Cancel*',
      '--skip',
      '2',
      '--once-per-bucket',
      '--duration',
      '5m',
      '--out',
      '/tmp/x',
    ]);
    expect(o.engine).to.equal('winedbg');
    expect(o.target).to.deep.equal({ kind: 'name', name: 'w3wp' });
    expect(o.selection).to.deep.equal({
      clr: false,
      av: true,
      cpp: true,
      codes: ['0xc00000fd'],
      allFirstChance: false,
    });
    expect(o).to.include({ skip: 2, oncePerBucket: true, durationMs: 300_000, outDir: '/tmp/x' });
    expect(o.exclude).to.deep.equal(['type:*Cancel*']);
  });

  it('launches a program given after --, and names a default out dir by date', () => {
    const o = options(['--engine', 'winedbg', '--', 'app.exe', '--port', '8080']);
    expect(o.target).to.deep.equal({
      kind: 'launch',
      program: 'app.exe',
      args: ['--port', '8080'],
    });
    expect(o.outDir).to.match(/cdb-harness-out[\\/]watch-251121_124859$/);
  });

  it('refuses ambiguous or bad arguments before doing anything', () => {
    const bad: string[][] = [
      ['--engine', 'winedbg'],
      ['--pid', '1', '--name', 'x', '--engine', 'winedbg'],
      ['--pid', 'abc', '--engine', 'winedbg'],
      ['--pid', '1', '--engine', 'gdb'],
      ['--pid', '1', '-fx', 'foo', '--engine', 'winedbg'],
      ['--pid', '1', '--include', 'kind:x', '--engine', 'winedbg'],
      ['--pid', '1', '--code', 'zebra', '--engine', 'winedbg'],
      ['--pid', '1', '--full', '--mini', '--engine', 'winedbg'],
      ['--pid', '1', '-mp', '--engine', 'winedbg'],
      ['--pid', '1', '--duration', 'soon', '--engine', 'winedbg'],
    ];
    for (const argv of bad) expect(() => options(argv), argv.join(' ')).to.throw(/./);
    expect(parseDuration('500ms')).to.equal(500);
    expect(parseDuration('90')).to.equal(90_000);
  });

  it('dump: one target, full by default, never both --full and --mini', () => {
    const o = dumpOptionsFromCli({ name: 'w3wp', out: '/tmp/d', engine: 'winedbg' }, {});
    expect(o).to.deep.include({
      target: { name: 'w3wp' },
      kind: 'full',
      outDir: '/tmp/d',
      overwrite: false,
    });
    expect(() => dumpOptionsFromCli({ engine: 'winedbg' }, {})).to.throw(/exactly one/);
    expect(() =>
      dumpOptionsFromCli({ pid: '1', full: true, mini: true, engine: 'winedbg' }, {}),
    ).to.throw(/exclude/);
  });
});
