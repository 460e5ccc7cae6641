// `cdb-harness dump`: placeholder until issue #8 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerDump(context: CommandContext): void {
  const action = notBuiltYet('dump', 8);
  context.program
    .command('dump')
    .description(
      '[not built yet] Write a dump of a running process now, without harming it (procdump -ma PID DIR).',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
