import { expect } from 'chai';
import { buildProgram, main } from '../../src/cli/main.js';

describe('cli', () => {
  it('lists every planned subcommand in --help', async () => {
    const help = (await buildProgram(() => {})).helpInformation();
    for (const name of [
      'analyze',
      'watch',
      'heap-trend',
      'dump',
      'inspect',
      'parse',
      'umdh-diff',
      'gflags',
    ]) {
      expect(help).to.match(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  it('exits 2 on an unknown subcommand', async () => {
    const code = await main(['node', 'cdb-harness', 'no-such-command']);
    expect(code).to.equal(2);
  });
});
