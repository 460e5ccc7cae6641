// `cdb-harness watch`: placeholder until issue #6 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerWatch(context: CommandContext): void {
  const action = notBuiltYet('watch', 6);
  context.program
    .command('watch')
    .description(
      '[not built yet] Attach to or launch a process, break on first-chance exceptions, identify each one and dump on a filter match.',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
