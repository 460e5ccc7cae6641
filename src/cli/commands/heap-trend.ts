// `cdb-harness heap-trend`: placeholder until issue #7 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerHeapTrend(context: CommandContext): void {
  const action = notBuiltYet('heap-trend', 7);
  context.program
    .command('heap-trend')
    .description(
      '[not built yet] Sample heap sizes of a live process over time and report which heaps grow (with umdh stacks on Windows).',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
