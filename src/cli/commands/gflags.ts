// `cdb-harness gflags`: placeholder until issue #7 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerGflags(context: CommandContext): void {
  const action = notBuiltYet('gflags', 7);
  context.program
    .command('gflags')
    .description(
      '[not built yet] Turn the user-mode stack trace database (+ust) on or off for an image (Windows).',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
