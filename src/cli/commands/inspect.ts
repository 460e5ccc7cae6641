// `cdb-harness inspect`: placeholder until issue #4 lands.
import type { CommandContext } from '../command-context.js';
import { notBuiltYet } from '../not-built.js';

export function registerInspect(context: CommandContext): void {
  const action = notBuiltYet('inspect', 4);
  context.program
    .command('inspect')
    .description(
      '[not built yet] Read .dmp files directly, no debugger needed: process, exception, threads, modules, memory.',
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => context.setExitCode(action()));
}
