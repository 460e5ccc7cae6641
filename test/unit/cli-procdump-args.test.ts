// ProcDump and cdb spellings reach the commands as their long options, and the operands of
// `dump` (PID or NAME, then a folder) become the same workflow options as the long forms.
import { expect } from 'chai';
import { watchOptionsFromCli } from '../../src/cli/commands/watch.js';
import { rewriteProcDumpArgs } from '../../src/cli/options.js';
import { parseDumpCli } from '../helpers/parse-dump-cli.js';

describe('ProcDump and cdb spellings', () => {
  it('rewrites only the spellings a command lists, and nothing after --', () => {
    expect(
      rewriteProcDumpArgs(['-ma', '-pn', 'w3wp', '-ml', '5', '--', '-ma'], ['-ma', '-pn', '-ml']),
    ).to.deep.equal(['--full', '--name', 'w3wp', '--commit-below', '5', '--', '-ma']);
    expect(rewriteProcDumpArgs(['-s', '3'], ['-ma'])).to.deep.equal(['-s', '3']);
    expect(() => rewriteProcDumpArgs(['-mp'], ['-ma'])).to.throw(/only ProcDump's -ma/);
  });

  it('dump -ma 1234 C:\\dumps is dump --full --pid 1234 --out C:\\dumps', () => {
    const short = parseDumpCli(['-ma', '1234', '/tmp/dumps', '--engine', 'winedbg']);
    const long = parseDumpCli([
      '--full',
      '--pid',
      '1234',
      '--out',
      '/tmp/dumps',
      '--engine',
      'winedbg',
    ]);
    expect(short).to.deep.equal(long);
    expect(short).to.deep.include({ target: { pid: 1234 }, kind: 'full', outDir: '/tmp/dumps' });
  });

  it('takes a NAME operand, -pn with a folder operand, -w, and -n/-s/-m/-ml', () => {
    expect(parseDumpCli(['-mm', 'w3wp', '--engine', 'winedbg'])).to.deep.include({
      target: { name: 'w3wp' },
      kind: 'mini',
    });
    expect(parseDumpCli(['-pn', 'w3wp', '/tmp/d', '--engine', 'winedbg'])).to.deep.include({
      target: { name: 'w3wp' },
      outDir: '/tmp/d',
    });
    expect(parseDumpCli(['-w', 'app.exe', '--engine', 'winedbg']).target).to.deep.equal({
      waitFor: 'app.exe',
    });
    const series = parseDumpCli([
      '-n',
      '3',
      '-s',
      '30',
      '-m',
      '500',
      '1234',
      '--engine',
      'winedbg',
    ]);
    expect(series).to.deep.include({
      count: 3,
      intervalMs: 30_000,
      trigger: { direction: 'above', thresholdBytes: 500 * 1024 * 1024 },
    });
    expect(parseDumpCli(['-ml', '1.5GB', '1234', '--engine', 'winedbg']).trigger).to.deep.equal({
      direction: 'below',
      thresholdBytes: 1.5 * 1024 * 1024 * 1024,
    });
    expect(parseDumpCli(['1234', '-y', 'srv*c:\\s', '--engine', 'winedbg']).symbolPath).to.equal(
      'srv*c:\\s',
    );
    expect(parseDumpCli(['1234', '--record', '/tmp/r', '--engine', 'winedbg']).recordPath).to.equal(
      '/tmp/r/dump-251121_120000.jsonl',
    );
  });

  it('watch -n N ends after N dumps unless --keep-watching; --exit-after-max stays accepted', () => {
    const base = { pid: '1', engine: 'winedbg' };
    const opts = (cli: object) => watchOptionsFromCli({ ...base, ...cli }, [], { CDB_PATH: '' });
    expect(opts({ maxDumps: '1' })).to.include({ maxDumps: 1, exitAfterMax: true });
    expect(opts({ maxDumps: '2', keepWatching: true })).to.include({
      maxDumps: 2,
      exitAfterMax: false,
    });
    expect(opts({ maxDumps: '1', exitAfterMax: true })).to.include({ exitAfterMax: true });
    expect(opts({})).to.include({ exitAfterMax: false });
    expect(() => opts({ keepWatching: true })).to.throw(/needs -n/);
  });
});
