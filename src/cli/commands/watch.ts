// `cdb-harness watch` (issue #6): attach to or launch a process, stop on first-chance exceptions,
// identify each one, dump on a filter match, log every exception, detach without harming it.
// Options follow ProcDump where users know it (-e 1, -f, -n, -ma, -mm); the workflow does the
// work and emits events; this file parses, prints and maps the outcome to an exit code.
import { checkOutWritable, defaultOutDir, outStamp } from '../default-out.js';
import { Option } from 'commander';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DIALECT_NAMES, isDialectName } from '../../engine/dialects/index.js';
import { UsageError } from '../../errors.js';
import { parseCount, parseDuration } from '../../units.js';
import { defaultEngine } from '../../workflows/process-lookup.js';
import { normalizeExceptionCode } from '../../workflows/watch/exception-codes.js';
import { parseFilter } from '../../workflows/watch/filter.js';
import { linuxWatchUsesDotnet } from '../../workflows/watch/dotnet-target.js';
import { DOTNET_DIAG_ENGINE } from '../../workflows/watch/watch-dotnet.js';
import { watch, type WatchOptions, type WatchTargetSpec } from '../../workflows/watch/watch.js';
import type { WatchSummary } from '../../workflows/watch/watch-records.js';
import { validate } from '../../report/schemas.js';
import { addCyborgOption, openJsonSink, type JsonSink } from '../cyborg.js';
import { formatWatchEvent, formatWatchSummary } from './watch-text.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';
import { LIVE_PROCESS_HABITS } from '../procdump-habits.js';
import {
  addDebuggerOption,
  addJsonOption,
  addLiveEngineOption,
  addOutOption,
  addRecordOption,
  addSymbolOptions,
  addTargetOptions,
  attach,
  countOption,
  durationOption,
  parsePid,
  printError,
  ProcDumpStyleCommand,
  symbolPathOf,
} from '../options.js';
import { escapeControls, escapeStrings } from '../../report/terminal-text.js';
import { currentPlatform } from '../../platform/common/host.js';

export interface WatchCliOptions {
  /** --cyborg FILE: summary.json into FILE, the summary text on stdout. */
  cyborg?: string;
  pid?: string;
  name?: string;
  wait?: string;
  engine?: string;
  clr?: boolean;
  av?: boolean;
  cpp?: boolean;
  code?: string[];
  allFirstChance?: boolean;
  e?: string | true;
  include?: string[];
  f?: string[];
  exclude?: string[];
  skip?: string;
  maxDumps?: string;
  keepWatching?: boolean;
  exitAfterMax?: boolean;
  oncePerBucket?: boolean;
  full?: boolean;
  mini?: boolean;
  duration?: string;
  out?: string;
  frames?: string;
  json?: boolean;
  quiet?: boolean;
  debugger?: string;
  symbols?: string;
  symbolPath?: string;
  record?: string;
  /** ProcDump's bare `-w` (`watch -e 1 -ma svc.exe -w`): wait for the NAME operand to start. */
  waitForOperand?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function count(name: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseCount(text, name);
}

/** Turns parsed CLI options (and the `-- PROGRAM ARGS` operands) into workflow options. */
export function watchOptionsFromCli(
  cli: WatchCliOptions,
  operands: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  now: Date = new Date(),
): Omit<WatchOptions, 'signal' | 'onEvent'> {
  const targets: WatchTargetSpec[] = [];
  if (cli.pid !== undefined) targets.push({ kind: 'pid', pid: parsePid(cli.pid) });
  if (cli.name !== undefined) targets.push({ kind: 'name', name: cli.name });
  if (cli.wait !== undefined) targets.push({ kind: 'wait', name: cli.wait });
  for (const spec of operandTargets(cli, operands)) targets.push(spec);
  const [target, extra] = targets;
  if (target === undefined || extra !== undefined) {
    throw new UsageError(
      'give exactly one target: -p/--pid N, --name NAME, -w/--wait NAME or -- PROGRAM ARGS',
    );
  }
  // On Linux a .NET target is watched through its runtime's diagnostics channel, no debugger.
  const engine =
    cli.engine ??
    (currentPlatform() === 'linux' && linuxWatchUsesDotnet(target, env)
      ? DOTNET_DIAG_ENGINE
      : defaultEngine(env));
  if (!isDialectName(engine) && engine !== DOTNET_DIAG_ENGINE) {
    throw new UsageError(
      `--engine must be ${[...DIALECT_NAMES, DOTNET_DIAG_ENGINE].join(' or ')}, got ${engine}`,
    );
  }

  // ProcDump: `-e` = unhandled only, `-e 1` = first chance too.
  let allFirstChance = cli.allFirstChance === true;
  let clr = cli.clr ?? true;
  if (cli.e !== undefined) {
    if (cli.e === '1') allFirstChance = true;
    else if (cli.e === true) clr = cli.clr === true;
    else
      throw new UsageError(
        `-e takes no value (unhandled only) or 1 (first chance too), got ${cli.e}`,
      );
  }
  const codes = (cli.code ?? []).map((c) => {
    const code = normalizeExceptionCode(c);
    if (code === null)
      throw new UsageError(`--code: not an exception code: ${c} (e.g. 0xc0000005, av, clr)`);
    return code;
  });

  // ProcDump `-fx` would reach us as `-f x`: refuse it rather than include the letter x.
  if ((cli.f ?? []).includes('x')) {
    throw new UsageError('-fx (ProcDump exclude) is spelled --exclude here');
  }
  // ProcDump's `-f ""` matches every exception (the golden v9 log shows its filter as `*`): an
  // empty include leaves the include list out, which matches everything too.
  const matchAll = (cli.f ?? []).includes('');
  const include = matchAll ? [] : [...(cli.include ?? []), ...(cli.f ?? [])];
  const exclude = cli.exclude ?? [];
  for (const f of [...include, ...exclude]) parseFilter(f); // usage errors now, not mid-run

  if (cli.full === true && cli.mini === true)
    throw new UsageError('--full and --mini exclude each other');
  const dumpKind: 'full' | 'mini' = cli.mini === true ? 'mini' : 'full';
  const maxDumps = count('--max-dumps', cli.maxDumps);
  // ProcDump's -n: that many dumps, then the session ends (scripts wait for that exit).
  // --keep-watching goes on logging exceptions after the last dump; --exit-after-max is the old
  // spelling of the default, kept for scripts that pass it.
  if (cli.keepWatching === true && cli.exitAfterMax === true)
    throw new UsageError('--keep-watching and --exit-after-max exclude each other');
  if (cli.keepWatching === true && maxDumps === undefined)
    throw new UsageError('--keep-watching needs -n/--max-dumps');
  const skip = count('--skip', cli.skip);
  const frames = count('--frames', cli.frames);
  const outDir = resolve(cli.out ?? defaultOutDir('watch', now));
  const options: Omit<WatchOptions, 'signal' | 'onEvent'> = {
    engine,
    target,
    outDir,
    selection: { clr, av: cli.av === true, cpp: cli.cpp === true, codes, allFirstChance },
    include,
    exclude,
    dumpKind,
    oncePerBucket: cli.oncePerBucket === true,
    exitAfterMax:
      cli.exitAfterMax === true || (maxDumps !== undefined && cli.keepWatching !== true),
    env,
  };
  if (maxDumps !== undefined) options.maxDumps = maxDumps;
  if (skip !== undefined) options.skip = skip;
  if (frames !== undefined) options.frames = frames;
  if (cli.duration !== undefined) options.durationMs = parseDuration(cli.duration, '--duration');
  if (cli.debugger !== undefined) options.debuggerPath = cli.debugger;
  const symbolPath = symbolPathOf(cli);
  if (symbolPath !== undefined) options.symbolPath = symbolPath;
  if (cli.record !== undefined)
    options.recordPath = join(resolve(cli.record), `watch-${outStamp(now)}.jsonl`);
  return options;
}

// A ProcDump target operand: 8012 (a pid), as in `procdump -e 1 -f "DoesNotExist" 8012`
const PID_OPERAND_RE = /^\d+$/;

/**
 * The operands as a target: ProcDump's `NAME -w` (wait for it), a lone pid (ProcDump's
 * `procdump -e 1 8012`), otherwise a program to launch with its arguments (`-- app.exe ARGS`).
 */
function operandTargets(cli: WatchCliOptions, operands: readonly string[]): WatchTargetSpec[] {
  const [program, ...args] = operands;
  if (cli.waitForOperand === true) {
    if (program === undefined || args.length > 0) {
      throw new UsageError(
        '-w waits for the process one NAME operand names: watch -e 1 app.exe -w',
      );
    }
    return [{ kind: 'wait', name: program }];
  }
  if (program === undefined) return [];
  if (args.length === 0 && PID_OPERAND_RE.test(program)) {
    return [{ kind: 'pid', pid: Number(program) }];
  }
  return [{ kind: 'launch', program, args }];
}

export function watchExitCode(s: WatchSummary): number {
  if (s.endReason === 'aborted') return ExitCode.Interrupted;
  if (s.error !== undefined) return s.error.code === 'TARGET' ? ExitCode.Target : ExitCode.Failure;
  if (s.targetAlive === false) return ExitCode.Failure;
  return ExitCode.Ok;
}

export function registerWatch(context: CommandContext): void {
  const command = new ProcDumpStyleCommand('watch', [...LIVE_PROCESS_HABITS, '-ma', '-mm', '-pn'])
    .description(
      'Attach to (or launch) a process, break on first-chance exceptions, identify each one, dump on a filter match, log every exception, and detach without harming it.',
    )
    .argument(
      '[program...]',
      'after --: a program (and its arguments) to launch under the debugger',
    );
  addTargetOptions(command, { wait: true });
  addLiveEngineOption(
    command,
    "; on Linux a .NET process is watched with dotnet-diag, its runtime's diagnostics channel, no debugger",
    [DOTNET_DIAG_ENGINE],
  );
  command
    .option('--clr', 'stop on first-chance CLR exceptions (e0434352; on by default)')
    .option('--no-clr', 'do not stop on first-chance CLR exceptions')
    .option('--av', 'stop on first-chance access violations (c0000005)')
    .option('--cpp', 'stop on first-chance C++ exceptions (MSVC e06d7363, mingw 20474343)')
    .option(
      '--code <code>',
      'stop on this first-chance code, e.g. 0xc00000fd or stackoverflow (repeatable)',
      collect,
    )
    .option('--all-first-chance', 'stop on every first-chance exception')
    .addOption(new Option('-e [1]', 'ProcDump: -e = unhandled only; -e 1 = first chance too'))
    .option(
      '--include <filter>',
      'dump only exceptions matching this filter (repeatable; see below)',
      collect,
    )
    .addOption(new Option('-f <filter>', 'ProcDump: same as --include').argParser(collect))
    .option(
      '--exclude <filter>',
      'never dump exceptions matching this filter (repeatable)',
      collect,
    )
    .addOption(countOption('--skip <n>', 'skip (log only) the first N matching exceptions'))
    .addOption(
      countOption(
        '-n, --max-dumps <n>',
        'write N dumps, then end the session, detaching (ProcDump -n)',
      ),
    )
    .option('--keep-watching', 'after the -n/--max-dumps dumps, go on logging exceptions')
    .option(
      '--exit-after-max',
      'end once --max-dumps dumps are written (the default; kept for old scripts)',
    )
    .option('--once-per-bucket', 'at most one dump per exception signature')
    .option('--full', 'full-memory dumps (.dump /ma; default; ProcDump -ma)')
    .option('--mini', 'mini dumps (.dump /m; ProcDump -mm)')
    .addOption(
      durationOption('--duration <duration>', 'end after this long (90, 30s, 5m, 1h), detaching'),
    );
  addOutOption(
    command,
    'where exceptions.ndjson, summary.json and dumps go (default ./cdb-harness-out/watch-<yyMMdd_HHmmss>)',
  );
  command.addOption(countOption('--frames <n>', 'top frames kept per exception (default 10)'));
  addJsonOption(command, 'print summary.json on stdout at the end');
  addCyborgOption(command, 'summary.json');
  command.option('-q, --quiet', 'no per-exception lines on stderr');
  addDebuggerOption(command);
  addSymbolOptions(command);
  addRecordOption(command);
  command
    .addHelpText(
      'after',
      `
Filters (--include / --exclude / -f):
  [FIELD:]PATTERN   PATTERN is a glob (* and ?, case-insensitive, whole value) or /regex/flags
  code:0xc0000005   code, or a name (av, clr, cpp, stackoverflow…), or a hex glob (e04343*)
  type:NullReferenceException   CLR type; without a namespace the last part matches too
  message:/time.?out/i          CLR message (native: the debugger's description)
  module:raise                  the module of any frame (.dll/.exe optional)
  frame:*!crash_here            any frame, module!function without offset
  boom              no field: ProcDump -f style substring of CODE.Type ("message")
  An exception is matched when it matches any include (or there are none) and no exclude.
  Order of dump limits: --skip, then --once-per-bucket, then --max-dumps.

ProcDump spellings: -ma (full), -mm (mini), -e, -e 1, -f (-f "" matches everything), -n N (N
dumps, then the session ends; add --keep-watching to go on logging), -w NAME or NAME -w, a lone
PID operand, -x DIR app.exe ARGS (launch, dumps into DIR), -accepteula and -o (accepted: watch
never overwrites a dump); -wer is refused. cdb's -p PID and -pn NAME.

Safety: live sessions are detached, never killed: cdb runs with -pd and ends with qd; winedbg
ends with detach + quit. The same on Ctrl-C, --duration, -n reached, target exit and errors;
on Linux also when the harness is killed (kill -9): docs/harness-death.md says what remains.

.NET on Linux (engine dotnet-diag, chosen by itself for a .NET pid, name or program): no
debugger; the runtime's exception events arrive through its diagnostics channel a few tens of
ms after each throw, and a dump is written through the same channel (an ELF core, .core). The
target is NOT stopped at the throw: the dump is taken shortly after it (dumpStartAfterThrowMs in
each dumped line). A process that is not .NET exits 3.

Output: OUT/exceptions.ndjson (one line per exception), OUT/summary.json, dumps named
  <process>.exe_<pid>_<code>[-Type]_<yyMMdd>_<HHmmss>.dmp, owner-only (0600).

Exit codes: 0 the watch ended (duration, -n dumps written, target exited by itself, Ctrl-C is
130), 1 failure (debugger error, the target was found gone after detaching), 2 usage error,
3 no debugger found, 5 target problem (not found, access denied, already debugged), 130 Ctrl-C.

Examples:
  cdb-harness watch --name w3wp --include type:System.NullReferenceException --max-dumps 3
  cdb-harness watch -p 1234 -e 1 -f Timeout -n 1 -ma --out dumps      ends after the dump
  cdb-harness watch -pn w3wp -e 1 -n 2 --keep-watching --duration 1h   2 dumps, log for an hour
  cdb-harness watch --engine winedbg --pid 32 --av --once-per-bucket --duration 5m
  cdb-harness watch -w app.exe -e -ma                                wait for app.exe to start
  cdb-harness watch -- app.exe --port 8080`,
    )
    .action(async (program: string[], cli: WatchCliOptions) => {
      context.setExitCode(await runWatch(program, cli));
    });
  attach(context.program, command);
}

export async function runWatch(program: readonly string[], cli: WatchCliOptions): Promise<number> {
  let options: Omit<WatchOptions, 'signal' | 'onEvent'>;
  let sink: JsonSink;
  try {
    options = watchOptionsFromCli(cli, program);
    checkOutWritable(options.outDir);
    if (cli.record !== undefined) mkdirSync(resolve(cli.record), { recursive: true });
    sink = await openJsonSink(cli);
  } catch (error) {
    printError(error);
    return exitCodeFor(error);
  }
  const controller = new AbortController();
  const onSignal = () => {
    process.stderr.write('\nCtrl-C: detaching from the target (it keeps running)...\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const summary = await watch({
      ...options,
      signal: controller.signal,
      onEvent: (event) => {
        if (cli.quiet === true && event.type === 'exception') return;
        const text = formatWatchEvent(event);
        if (text !== null) process.stderr.write(`${escapeControls(text)}\n`);
      },
    });
    // The summary goes with the events to stderr; --cyborg puts it on stdout, its JSON in FILE.
    const text = `${formatWatchSummary(escapeStrings(summary))}\n`;
    (sink.toFile ? process.stdout : process.stderr).write(text);
    if (sink.active) {
      const check = validate('watchSummary', summary);
      if (!check.ok)
        process.stderr.write(
          `warning: summary does not match its schema: ${check.errors.join('; ')}\n`,
        );
      await sink.write(`${JSON.stringify(summary, null, 2)}\n`);
    }
    return watchExitCode(summary);
  } catch (error) {
    // Ctrl-C while waiting for the process (-w) or listing processes: the listing's own error
    // ("could not list processes") is the interruption's echo, not a target problem.
    if (controller.signal.aborted) {
      process.stderr.write('interrupted before the watch began; nothing was attached\n');
      return ExitCode.Interrupted;
    }
    printError(error);
    return exitCodeFor(error);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sink.close();
  }
}
