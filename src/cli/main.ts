// CLI entry point: builds the commander program, runs one subcommand, returns its exit code.
// The only layer that prints (design.md).
import { Command, CommanderError } from 'commander';
import { isHarnessError } from '../errors.js';
import { COMMANDS } from './commands/index.js';
import { EXIT_CODES_HELP, ExitCode, exitCodeFor } from './exit-codes.js';
import { ERROR_PREFIX, writeCommanderError } from './options.js';

export const VERSION = '0.1.0';

export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('cdb-harness')
    .description(
      'Drive cdb.exe (or winedbg) over a pseudo-terminal, parse every reply into typed records, ' +
        'and report exceptions and heap growth as schema-checked JSON.',
    )
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ outputError: writeCommanderError })
    .addHelpText(
      'after',
      `
Examples:
  cdb-harness analyze examples/dumps --engine builtin   triage the example dumps, no debugger needed
  cdb-harness inspect crash.dmp --json                  read a dump directly
  cdb-harness parse session.log --text                  turn saved cdb output into records
  cdb-harness dump -ma 1234 C:\\dumps                     ProcDump's shape: a full dump of pid 1234
  cdb-harness watch -p 1234 -e 1 -n 1 -ma               one dump on a first-chance exception, then exit

Every command speaks one vocabulary (docs/cli.md): -p/--pid, --name, -y/--symbols, --debugger,
--out DIR, --json, --record DIR, durations 90/30s/5m/1h and sizes 512KB/100MB/2GB.

${EXIT_CODES_HELP}`,
    );
  for (const register of COMMANDS) register({ program, setExitCode });
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exitCode 0 here; real usage errors with 1 → our 2.
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    const message = isHarnessError(error) ? error.message : String(error);
    process.stderr.write(`${ERROR_PREFIX}${message}\n`);
    return exitCodeFor(error);
  }
  return exitCode;
}
