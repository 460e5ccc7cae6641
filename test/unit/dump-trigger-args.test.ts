// ProcDump's trigger flags on `dump` (-c/-cl/-u/-s, -m list, --commit-step, -t, -h, -p/-pl): what
// they become, and every combination or value refused before anything runs, with its reason.
import { expect } from 'chai';
import { rewriteProcDumpArgs } from '../../src/cli/options.js';
import { parseDumpCli } from '../helpers/parse-dump-cli.js';
import { dumpSeries } from '../../src/workflows/dump/dump-series.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const MB = 1024 * 1024;

describe('dump trigger flags', () => {
  it('-c/-cl PERCENT [-u] [-s N]: a CPU trigger holding -s seconds (default 10)', () => {
    expect(
      parseDumpCli(['-c', '80', '-s', '5', '-n', '3', '1234', '--engine', 'winedbg']),
    ).to.deep.include({
      count: 3,
      cpu: { direction: 'above', percent: 80, perCore: false, holdMs: 5000 },
    });
    expect(parseDumpCli(['-cl', '5', '-u', '1234', '--engine', 'winedbg']).cpu).to.deep.equal({
      direction: 'below',
      percent: 5,
      perCore: true,
      holdMs: 10_000,
    });
  });

  it('-m 27,47,67,87 is one dump per step, in order; -ml falls; --commit-step steps from the start', () => {
    const list = parseDumpCli(['-m', '87,27,47,67', '1234', '--engine', 'winedbg']);
    expect(list.trigger).to.deep.equal({
      direction: 'above',
      thresholdBytes: 27 * MB,
      steps: [27 * MB, 47 * MB, 67 * MB, 87 * MB],
    });
    expect(list.count).to.equal(undefined);
    expect(
      parseDumpCli(['-ml', '100,300,200', '1234', '--engine', 'winedbg']).trigger?.steps,
    ).to.deep.equal([300 * MB, 200 * MB, 100 * MB]);
    expect(
      parseDumpCli(['--commit-step', '20MB', '-n', '4', '1234', '--engine', 'winedbg']),
    ).to.deep.include({
      count: 4,
      trigger: { direction: 'above', thresholdBytes: 20 * MB, stepBytes: 20 * MB },
    });
  });

  it('-t asks for the exit; -h alone is still help; -p PATH N is the counter form, -p PID the pid', () => {
    expect(parseDumpCli(['-t', '1234', '--engine', 'cdb']).onExit).to.equal(true);
    expect(rewriteProcDumpArgs(['-h'], ['-h'])).to.deep.equal(['-h']);
    expect(rewriteProcDumpArgs(['-h', '12'], ['-h'])).to.deep.equal(['--hung-window', '12']);
    expect(
      rewriteProcDumpArgs(['-p', '\\Processor(_Total)\\% Processor Time', '80', '12'], ['-pl']),
    ).to.deep.equal([
      '--counter',
      '\\Processor(_Total)\\% Processor Time',
      '--counter-above',
      '80',
      '12',
    ]);
    expect(
      rewriteProcDumpArgs(['-pl', '\\Memory\\Available MBytes', '500'], ['-pl']),
    ).to.deep.equal(['--counter', '\\Memory\\Available MBytes', '--counter-below', '500']);
    expect(rewriteProcDumpArgs(['-p', '1234'], ['-pl'])).to.deep.equal(['-p', '1234']);
  });

  it("-h [--hung-after D]: a hung-window trigger, ProcDump's 5 s unless --hung-after says otherwise", () => {
    expect(parseDumpCli(['-h', '1234', '--engine', 'winedbg'])).to.deep.include({
      hung: { hungAfterMs: 5000 },
    });
    expect(
      parseDumpCli(['-h', '--hung-after', '2s', '1234', '--engine', 'winedbg']),
    ).to.deep.include({
      hung: { hungAfterMs: 2000 },
    });
  });

  const refused: [string[], RegExp][] = [
    [['-c', '150', '1'], /-c.* must be a percentage above 0 and at most 100/],
    [['-c', '0', '1'], /must be a percentage above 0/],
    [['-cl', 'lots', '1'], /must be a percentage/],
    [['-c', '50', '-s', '0', '1'], /"0" must be greater than zero/],
    [['-c', '50', '-cl', '10', '1'], /-c\/--cpu-above and -cl\/--cpu-below exclude each other/],
    [['-u', '1'], /-u\/--per-core qualifies a CPU threshold/],
    [['-c', '50', '-m', '500', '1'], /one trigger at a time: -m\/-ml\/--commit-step and -c\/-cl/],
    [['-t', '-c', '50', '1'], /one trigger at a time/],
    [['-t', '-n', '2', '1'], /-t writes the one dump a process can have at its exit/],
    [['-m', '27,47', '-n', '2', '1'], /writes one dump per threshold/],
    [['--hung-after', '10s', '1'], /--hung-after sets the -h/],
    [['-h', '--hung-after', 'soon', '1'], /--hung-after/],
    [['-h', '-c', '50', '1'], /one trigger at a time: -c\/-cl and -h/],
    [
      ['-p', '\\Nope(_Total)\\Not A Counter', '5', '1'],
      /performance counters are Windows' PDH; this host \(linux\) has none.*"\\\\Nope\(_Total\)\\\\Not A Counter" cannot be read here\. Nothing was run/,
    ],
    [['--counter', 'Processor Time', '--counter-above', '5', '1'], /is not a counter path/],
    [
      ['-p', '\\Processor(_Total)\\% Processor Time', '5', '-pl', '\\Memory\\X', '1', '1'],
      /exclude each other/,
    ],
  ];
  for (const [argv, message] of refused) {
    it(`refuses dump ${argv.join(' ')}`, () => {
      expect(() => parseDumpCli([...argv, '--engine', 'winedbg'])).to.throw(message);
    });
  }

  it('refuses -t under winedbg before anything attaches, saying why', async () => {
    try {
      await dumpSeries({
        engine: 'winedbg',
        target: { pid: 1 },
        outDir: makeTempDir('t'),
        onExit: true,
      });
      expect.fail('-t under winedbg was accepted');
    } catch (error) {
      expect((error as Error).message).to.match(
        /-t: winedbg cannot stop a process that is about to exit.*Use --engine cdb \(sxe epr\); nothing was attached/,
      );
    }
  });
});
