// The top-level help lists every command from its `listing` in commands/index.ts, without loading
// the command modules (start-up time, bench/cli-start.ts). It must print exactly what loading them
// would: same terms, same descriptions, same order.
import { expect } from 'chai';
import { buildProgram } from '../../../src/cli/main.js';
import { COMMANDS } from '../../../src/cli/commands/index.js';

describe('cli/commands/index.ts listings', () => {
  it('make the top-level help identical to the one built from every command module', async () => {
    const real = (await buildProgram(() => undefined)).helpInformation();
    for (const flag of ['--help', '-h']) {
      const listed = await buildProgram(() => undefined, ['node', 'cdb-harness', flag]);
      expect(listed.helpInformation(), flag).to.equal(real);
    }
    const bare = await buildProgram(() => undefined, ['node', 'cdb-harness']);
    expect(bare.helpInformation()).to.equal(real);
  });

  it('describe each command as its module does', async () => {
    const program = await buildProgram(() => undefined);
    for (const entry of COMMANDS) {
      const command = program.commands.find((c) => c.name() === entry.name);
      expect(command, entry.name).to.not.equal(undefined);
      if (entry.listing === undefined) continue;
      expect(entry.listing.description, entry.name).to.equal(command!.description());
      expect(entry.listing.term, entry.name).to.equal(
        program.createHelp().subcommandTerm(command!),
      );
    }
  });

  it('help COMMAND still shows that command in full', async () => {
    const program = await buildProgram(() => undefined, ['node', 'cdb-harness', 'help', 'parse']);
    const parse = program.commands.find((c) => c.name() === 'parse');
    expect(parse?.options.map((o) => o.long)).to.include('--command');
  });
});
