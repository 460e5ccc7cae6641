// CLI entry point: builds the commander program, runs one subcommand, returns its exit code.
// The only layer that prints. Only the subcommand being run is loaded (see commands/index.ts):
// `--version` loads none, `inspect` loads the minidump reader but never the debugger engine.
import type { Command } from 'commander';
import { isHarnessError } from '../errors.js';
import { packageInfo } from '../package-info.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import { EXIT_CODES_HELP, ExitCode, exitCodeFor } from './exit-codes.js';
import { ERROR_PREFIX, errorLine, writeCommanderError } from './error-output.js';
import { helpWidth, wrapHelpText } from './help-wrap.js';

/** The package version, read from package.json (one place). */
export const VERSION = packageInfo().version;
/** For bin/cdb-harness.js: a failure of stdout in the CLI's words. */
export { failureCause } from '../errors.js';

/**
 * The commander program with the subcommands `argv` needs registered: only the one named by
 * `argv[2]`, none for a bare `--version`, all of them otherwise (top-level help, an unknown name
 * that wants a suggestion) and when `argv` is not given.
 */
export async function buildProgram(
  setExitCode: (code: number) => void,
  argv?: readonly string[],
): Promise<Command> {
  // Loaded here, not at the top: a bare `--version` does not need commander.
  const { Command, Help } = await import('commander');
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
  const listed = new Map<Command, string>();
  const wanted = commandsFor(argv);
  for (const entry of wanted === 'list' ? COMMANDS : wanted) {
    const real = wanted !== 'list' || entry.listing === undefined || argv?.[3] === entry.name;
    if (real) (await entry.load())({ program, setExitCode });
    else if (entry.listing) {
      listed.set(
        program.command(entry.name).description(entry.listing.description),
        entry.listing.term,
      );
    }
  }
  if (listed.size > 0) {
    const plain = new Help();
    program.configureHelp({
      subcommandTerm: (command: Command) => listed.get(command) ?? plain.subcommandTerm(command),
    });
  }
  // Help text added with addHelpText (examples, notes) wrapped to the terminal like commander's own.
  const wrapOut = (text: string) => process.stdout.write(wrapHelpText(text, helpWidth()));
  const each = (command: Command): void => {
    command.configureOutput({ writeOut: wrapOut });
    command.commands.forEach(each);
  };
  each(program);
  return program;
}

/**
 * The commands `argv` needs: the one it names, none for a bare `--version`, and `'list'` for the
 * top-level help (`cdb-harness`, `--help`, `-h`, `help [command]`): each command is then listed
 * from its `listing`, with no module loaded (except the one `help COMMAND` names). Anything else
 * (an unknown name, which wants a suggestion) and no `argv` at all load every command.
 */
function commandsFor(argv: readonly string[] | undefined): readonly CommandEntry[] | 'list' {
  if (argv === undefined) return COMMANDS;
  const first = argv[2];
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    return 'list';
  }
  if (argv.length === 3 && (first === '--version' || first === '-V')) return [];
  const named = COMMANDS.find((entry) => entry.name === first);
  return named ? [named] : COMMANDS;
}

export async function main(argv: readonly string[]): Promise<number> {
  // The one answer that needs no command parser at all: a script's `--version` check should cost
  // about what `node -e 0` does (bench/cli-start.ts). Same output as commander's.
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return ExitCode.Ok;
  }
  let exitCode: number = ExitCode.Ok;
  try {
    const program = await buildProgram((code) => {
      exitCode = code;
    }, argv);
    await program.parseAsync([...argv]);
  } catch (error) {
    if (isCommanderError(error)) {
      // --help and --version end with exitCode 0 here; real usage errors with 1 → our 2.
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    const message = isHarnessError(error) ? error.message : errorLine(error);
    process.stderr.write(`${ERROR_PREFIX}${message}\n`);
    return exitCodeFor(error);
  }
  return exitCode;
}

/** commander's own exits (help, version, usage errors): `code` is `commander.<what>`. */
function isCommanderError(error: unknown): error is { exitCode: number } {
  return (
    error instanceof Error &&
    String((error as { code?: unknown }).code).startsWith('commander.') &&
    typeof (error as { exitCode?: unknown }).exitCode === 'number'
  );
}
