// `cdb-harness umdh-diff`: placeholder until issue #7 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerUmdhDiff(context: CommandContext): void {
  const action = notBuiltYet('umdh-diff', 7);
  context.program
    .command('umdh-diff')
    .description(
      '[not built yet] Compare N umdh snapshots: per allocation stack growth, slope and consistency.',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
