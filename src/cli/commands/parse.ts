// `cdb-harness parse`: placeholder until issue #3 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerParse(context: CommandContext): void {
  const action = notBuiltYet('parse', 3);
  context.program
    .command('parse')
    .description(
      '[not built yet] Parse saved debugger output (or a session log) into typed JSON records.',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
