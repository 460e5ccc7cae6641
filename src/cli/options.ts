// The shared vocabulary of the command line: one spelling, one value grammar and one help text per
// concept, so `--symbols` on analyze means what it means on watch (docs/cli.md lists them all;
// test/unit/cli-vocabulary.test.ts reads every command and holds them to this file).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { DIALECT_NAMES } from '../engine/dialects/index.js';
import { UsageError } from '../errors.js';
import { parseCount, parseDuration, parsePercent, parseSizeKb, parseSizeList } from '../units.js';
import { REDIRECT_POLICIES, type RedirectPolicy } from '../symbols/redirect-policy.js';
import { rewriteHabit, WAIT_OPERAND_FLAG, type Habit } from './procdump-habits.js';

export { ERROR_PREFIX, printError, writeCommanderError } from './error-output.js';

// ---- value grammars: validate at parse time (a usage error before anything runs), keep the text
// so the command's own option mapping reads the same string the user typed ----------------------

const grammars = new WeakMap<Option, Grammar>();
export type Grammar = 'duration' | 'size' | 'sizes' | 'count' | 'pid' | 'percent';

/** Which shared grammar an option's value follows (undefined: free text or a path). */
export function grammarOf(option: Option): Grammar | undefined {
  return grammars.get(option);
}

function withGrammar(option: Option, grammar: Grammar): Option {
  const flag = option.long ?? option.short ?? option.flags;
  const check: Record<Grammar, (text: string) => unknown> = {
    duration: (t) => parseDuration(t, flag),
    size: (t) => parseSizeKb(t, flag),
    sizes: (t) => parseSizeList(t, flag),
    count: (t) => parseCount(t, flag),
    pid: (t) => parsePid(t, flag),
    percent: (t) => parsePercent(t, flag),
  };
  option.argParser((text: string) => {
    check[grammar](text);
    return text;
  });
  grammars.set(option, grammar);
  return option;
}

export const durationOption = (flags: string, description: string): Option =>
  withGrammar(new Option(flags, description), 'duration');
export const sizeOption = (flags: string, description: string): Option =>
  withGrammar(new Option(flags, description), 'size');
export const sizesOption = (flags: string, description: string): Option =>
  withGrammar(new Option(flags, description), 'sizes');
export const countOption = (flags: string, description: string): Option =>
  withGrammar(new Option(flags, description), 'count');
export const percentOption = (flags: string, description: string): Option =>
  withGrammar(new Option(flags, description), 'percent');

// 1234
const PID_RE = /^\d+$/;

/** A decimal process id (winedbg prints them in hex; we always take decimal, as tasklist shows). */
export function parsePid(text: string, what = '--pid'): number {
  if (!PID_RE.test(text.trim())) {
    throw new UsageError(`${what} must be a decimal process id, got ${JSON.stringify(text)}`);
  }
  return Number(text.trim());
}

// ---- the concepts ---------------------------------------------------------------------------------

/** `-y, --symbols` and its long alias `--symbol-path` (cdb's own `-y`). */
export function addSymbolOptions(command: Command, what = 'symbol path for the debugger'): void {
  command
    .option('-y, --symbols <path>', `${what} (cdb -y; srv*C:\\symbols*https://…)`)
    .option('--symbol-path <path>', 'same as --symbols');
}

/**
 * Builtin symbols: `--symbol-timeout` (deadline per download), `--symbol-max-size` (largest
 * symbol file downloaded or expanded from a `.pd_` cabinet) and `--symbol-redirects` (which
 * redirects a download follows), docs/symbols.md "Bounds and failures".
 */
export function addSymbolLimitOptions<C extends Command>(command: C): C {
  command
    .addOption(
      durationOption(
        '--symbol-timeout <duration>',
        'builtin: deadline per symbol download: 30s, 2m (default 60s; refused or 5xx: 3 tries)',
      ),
    )
    .addOption(
      sizeOption(
        '--symbol-max-size <size>',
        'builtin: largest symbol file downloaded or expanded from a .pd_ (default 1GB; a PDB also at most 64x its module, 64MB min)',
      ),
    )
    .addOption(
      new Option(
        '--symbol-redirects <policy>',
        'builtin: redirects a symbol server may send a download to: same-host, https (default: same host, or https to a public host) or any',
      ).choices(REDIRECT_POLICIES),
    );
  return command;
}

/** The parsed `--symbol-timeout` / `--symbol-max-size`, as analyzeDumps and the symbolizer take them. */
export function symbolLimitsOf(cli: {
  symbolTimeout?: string;
  symbolMaxSize?: string;
  symbolRedirects?: string;
}): {
  symbolDownloadTimeoutMs?: number;
  symbolMaxBytes?: number;
  symbolRedirects?: RedirectPolicy;
} {
  return {
    ...(cli.symbolRedirects === undefined
      ? {}
      : { symbolRedirects: cli.symbolRedirects as RedirectPolicy }),
    ...(cli.symbolTimeout === undefined
      ? {}
      : { symbolDownloadTimeoutMs: parseDuration(cli.symbolTimeout, '--symbol-timeout') }),
    ...(cli.symbolMaxSize === undefined
      ? {}
      : { symbolMaxBytes: parseSizeKb(cli.symbolMaxSize, '--symbol-max-size') * 1024 }),
  };
}

/** The symbol path from either spelling; both at once is a usage error. */
export function symbolPathOf(cli: { symbols?: string; symbolPath?: string }): string | undefined {
  if (cli.symbols !== undefined && cli.symbolPath !== undefined && cli.symbols !== cli.symbolPath) {
    throw new UsageError(
      'give the symbol path once: --symbols, --symbol-path and -y are one option',
    );
  }
  return cli.symbols ?? cli.symbolPath;
}

/**
 * `--wine-prefix DIR`: the one Wine prefix whose drive_c recorded `C:\` module paths are looked
 * up in (never $WINEPREFIX or ~/.wine unnamed: symbols/supplier/local-paths.ts).
 */
export function addWinePrefixOption(command: Command): void {
  command.option(
    '--wine-prefix <dir>',
    'builtin walk: look for recorded C:\\ module paths under DIR/drive_c (default: nowhere; $WINEPREFIX and ~/.wine are not used)',
  );
}

/** The named prefix, absolute; a folder without drive_c is a usage error, not a silent miss. */
export function winePrefixOf(cli: { winePrefix?: string }): { winePrefix?: string } {
  if (cli.winePrefix === undefined) return {};
  const prefix = resolve(cli.winePrefix);
  if (!existsSync(join(prefix, 'drive_c'))) {
    throw new UsageError(`--wine-prefix ${cli.winePrefix}: not a Wine prefix (no drive_c in it)`);
  }
  return { winePrefix: prefix };
}

/** `--debugger PATH`: the cdb.exe or winedbg to run instead of the one found. */
export function addDebuggerOption(command: Command): void {
  command.option('--debugger <path>', 'the cdb.exe (or winedbg) to run instead of the one found');
}

/** `--engine cdb|winedbg` for live-process commands. */
export function addLiveEngineOption(
  command: Command,
  note = '',
  extraEngines: readonly string[] = [],
): void {
  command.addOption(
    new Option(
      '--engine <engine>',
      `cdb or winedbg (default: cdb when found, else winedbg)${note}`,
    ).choices([...DIALECT_NAMES, ...extraEngines]),
  );
}

/** `-p, --pid` and `--name` (with ProcDump's and cdb's `-pn`), and `-w, --wait`. */
export function addTargetOptions(command: Command, options: { wait?: boolean } = {}): void {
  command.addOption(
    withGrammar(new Option('-p, --pid <pid>', 'the process id, decimal (cdb -p)'), 'pid'),
  );
  command.option(
    '--name <name>',
    'the one process with this image name, w3wp or w3wp.exe (cdb -pn)',
  );
  if (options.wait === true) {
    command.option(
      '-w, --wait <name>',
      'wait for a process with this image name to start, then take it (ProcDump -w)',
    );
    // ProcDump's bare `-w` after the NAME operand (procdump-habits.ts): not typed by name.
    command.addOption(new Option(WAIT_OPERAND_FLAG).hideHelp());
  }
}

/** The process a command takes: by pid, by name, or the one that starts with that name. */
export type ProcessTarget = { pid: number } | { name: string } | { waitFor: string };

// A ProcDump target operand: 1234 (a pid) or w3wp / w3wp.exe (a name)
const PID_OPERAND_RE = /^\d+$/;

/**
 * The one target of -p, --name, -w NAME and a PID-or-NAME operand (ProcDump's `dump 1234`,
 * `heap-trend w3wp`); with ProcDump's bare `-w` (`app.exe -w`) the operand is waited for.
 * `example` shows that form in the message when the operand is missing.
 */
export function oneTarget(
  cli: { pid?: string; name?: string; wait?: string; waitForOperand?: boolean },
  operand: string | undefined,
  example: string,
): ProcessTarget {
  const targets: ProcessTarget[] = [];
  if (cli.pid !== undefined) targets.push({ pid: parsePid(cli.pid) });
  if (cli.name !== undefined) targets.push({ name: cli.name });
  if (cli.wait !== undefined) targets.push({ waitFor: cli.wait });
  if (cli.waitForOperand === true && operand === undefined) {
    throw new UsageError(`-w waits for the process a NAME operand names: ${example}`);
  }
  if (operand !== undefined) {
    targets.push(
      cli.waitForOperand === true
        ? { waitFor: operand }
        : PID_OPERAND_RE.test(operand)
          ? { pid: Number(operand) }
          : { name: operand },
    );
  }
  const [target, second] = targets;
  if (target === undefined || second !== undefined) {
    throw new UsageError(
      'give exactly one target: a PID or NAME operand, -p/--pid N, --name NAME (-pn) or -w/--wait NAME',
    );
  }
  return target;
}

/** `--out DIR`: always a folder the command writes its files into. */
export function addOutOption(command: Command, what: string): void {
  command.option('--out <dir>', what);
}

/** `--json`: the machine-readable result on stdout; progress and messages stay on stderr. */
export function addJsonOption(command: Command, what: string): void {
  command.option('--json', what);
}

/** `--record DIR`: one raw transcript (JSON lines) per debugger session, into this folder. */
export function addRecordOption(command: Command): void {
  command.option(
    '--record <dir>',
    'keep a raw transcript (JSON lines) of each debugger session in this folder',
  );
}

// ---- ProcDump and cdb spellings -------------------------------------------------------------------

/**
 * Multi-letter single-dash spellings users bring from ProcDump (`-ma`, `-mm`, `-ml`) and cdb
 * (`-pn`) are not options commander can declare (a short option is one letter), so they are
 * rewritten to their long names before the command parses its arguments; so is ProcDump's `-s`
 * (seconds between dumps), which is our shared `--interval`. Only the spellings a
 * command lists are rewritten, and nothing after `--` (a launched program's own arguments).
 * Source of the spellings: https://learn.microsoft.com/sysinternals/downloads/procdump and
 * https://learn.microsoft.com/windows-hardware/drivers/debugger/cdb-command-line-options
 */
export const PROCDUMP_SPELLINGS = {
  '-ma': '--full',
  '-mm': '--mini',
  '-ml': '--commit-below',
  '-pn': '--name',
  '-s': '--interval',
  '-cl': '--cpu-below',
  '-h': '--hung-window',
  '-pl': '--counter-below',
} as const;

export type ProcDumpSpelling = keyof typeof PROCDUMP_SPELLINGS;

// -mp, -mt, -mc, -md, -mk: ProcDump dump types we do not write
const OTHER_DUMP_TYPE_RE = /^-m[a-z]$/;

export function rewriteProcDumpArgs(
  args: readonly string[],
  spellings: readonly (ProcDumpSpelling | Habit)[],
  command = '',
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      for (const arg of args.slice(i)) out.push(arg);
      break;
    }
    const habit = rewriteHabit(args, i, spellings, command);
    if (habit !== undefined) {
      for (const word of habit.words) out.push(word);
      i += habit.used - 1;
      continue;
    }
    // `dump -h` alone is still help; with anything else it is ProcDump's hung-window trigger.
    if (arg === '-h' && args.length === 1) {
      out.push(arg);
      continue;
    }
    // ProcDump's `-p "\\Processor(_Total)\\% Processor Time" 80` and `-pl PATH N`: a counter
    // path and a threshold (a `-p` followed by anything else stays cdb's --pid).
    const counter = counterForm(arg, spellings);
    const path = args[i + 1];
    if (counter !== undefined && path?.startsWith('\\') === true) {
      out.push('--counter', path);
      if (args[i + 2] !== undefined) out.push(counter, args[i + 2] ?? '');
      i += 2;
      continue;
    }
    const long =
      (spellings as readonly string[]).includes(arg) && arg in PROCDUMP_SPELLINGS
        ? PROCDUMP_SPELLINGS[arg as ProcDumpSpelling]
        : undefined;
    if (long !== undefined) {
      out.push(long);
      continue;
    }
    if (OTHER_DUMP_TYPE_RE.test(arg) && spellings.includes('-ma')) {
      throw new UsageError(
        `${arg}: only ProcDump's -ma (full) and -mm (mini) dump types exist here`,
      );
    }
    out.push(arg);
  }
  return out;
}

/** `-p`/`-pl` as ProcDump's counter trigger (only where the command lists `-pl`). */
function counterForm(
  arg: string,
  spellings: readonly (ProcDumpSpelling | Habit)[],
): string | undefined {
  if (!spellings.includes('-pl')) return undefined;
  if (arg === '-p') return '--counter-above';
  if (arg === '-pl') return '--counter-below';
  return undefined;
}

/** A subcommand that understands the ProcDump/cdb spellings it lists (see rewriteProcDumpArgs). */
export class ProcDumpStyleCommand extends Command {
  constructor(
    name: string,
    readonly procdumpSpellings: readonly (ProcDumpSpelling | Habit)[],
  ) {
    super(name);
  }

  override parseOptions(argv: string[]): ReturnType<Command['parseOptions']> {
    return super.parseOptions(rewriteProcDumpArgs(argv, this.procdumpSpellings, this.name()));
  }
}

/** Attaches a command built with `new …Command(name)` so it inherits the program's settings. */
export function attach(program: Command, command: Command): Command {
  command.copyInheritedSettings(program);
  program.addCommand(command);
  return command;
}
