// Placeholder action for subcommands whose issue has not landed yet: says so plainly, exits 2.
import { ExitCode } from './exit-codes.js';

export function notBuiltYet(name: string, issue: number): () => number {
  return () => {
    process.stderr.write(
      `cdb-harness ${name}: not built yet (planned in issue #${issue}). Nothing was done.\n`,
    );
    return ExitCode.Usage;
  };
}
