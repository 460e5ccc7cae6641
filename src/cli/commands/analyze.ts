// `cdb-harness analyze`: placeholder until issue #5 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerAnalyze(context: CommandContext): void {
  const action = notBuiltYet('analyze', 5);
  context.program
    .command('analyze')
    .description(
      '[not built yet] Batch-analyse .dmp files (files, folders, globs): exception, stacks, CLR exception, heap summary, buckets.',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
