// --help wraps its examples and notes to the terminal width (80 when stdout is not a terminal),
// as commander wraps its option table: no line runs past the width where a space allows a break.
import { expect } from 'chai';
import { helpWidth, wrapHelpText } from '../../src/cli/help-wrap.js';
import { runCli } from '../helpers/cli.js';

describe('--help line wrapping', function () {
  this.timeout(60_000);

  it('wraps example lines under their description column and prose under its indent', () => {
    const example = `  cdb-harness analyze examples/dumps   ${'triage the dumps '.repeat(5).trim()}`;
    const lines = wrapHelpText(example, 60).split('\n');
    expect(lines.length).to.be.above(1);
    for (const line of lines) expect(line.length).to.be.at.most(60);
    const column = example.indexOf('triage');
    for (const line of lines.slice(1)) expect(line.search(/\S/)).to.equal(column);
    expect(lines.join(' ').replace(/\s+/g, ' ')).to.equal(example.replace(/\s+/g, ' '));
    const word = 'x'.repeat(90);
    expect(wrapHelpText(word, 60)).to.equal(word);
  });

  it('wraps a paragraph hard-wrapped at 100 once, not long-short-long, and never breaks an example command', () => {
    const words = 'the dump is read back and checked with the built-in reader before it is kept';
    const prose = `${words} ${words}\n${words} ${words}\n${words}`;
    const lines = wrapHelpText(prose, 80).split('\n');
    // Every line but the last is filled to near the width: no short line between two long ones.
    for (const line of lines.slice(0, -1)) expect(line.length).to.be.within(70, 80);
    expect(lines.join(' ')).to.equal(prose.replace(/\n/g, ' '));
    const row =
      '  -t        the process is about to exit: cdb attaches\n      invasively and stops there';
    expect(wrapHelpText(row, 80)).to.equal(
      '  -t        the process is about to exit: cdb attaches invasively and stops\n            there',
    );
    const command = `  cdb-harness analyze crashes/ --symbols "srv*C:\\symbols*https://msdl.microsoft.com/download/symbols"`;
    const example = `${command}\n      every dump under crashes/`;
    expect(wrapHelpText(example, 80).split('\n')).to.deep.equal([
      command,
      '      every dump under crashes/',
    ]);
  });

  it('takes the terminal’s columns on a TTY and 80 otherwise', () => {
    expect(helpWidth({ isTTY: true, columns: 132 })).to.equal(132);
    expect(helpWidth({ isTTY: false, columns: 132 })).to.equal(80);
    expect(helpWidth({})).to.equal(80);
  });

  for (const command of ['analyze', 'dump', 'watch', 'heap-trend', 'parse', 'inspect']) {
    it(`keeps ${command} --help within 80 columns when stdout is not a terminal`, async () => {
      const run = await runCli([command, '--help']);
      expect(run.code).to.equal(0);
      // An example command alone on its line is never broken (the terminal folds it).
      const long = run.stdout
        .split('\n')
        .filter((l) => l.length > 80 && /\S\s+\S/.test(l.trim()))
        .filter((l) => !/^\s*cdb-harness\s(?:(?!\S\s{2,}\S).)*$/.test(l));
      expect(long).to.deep.equal([]);
    });
  }
});
