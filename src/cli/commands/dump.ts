// `cdb-harness dump` (issue #8, #14): write a dump of a running process without harming it, in
// ProcDump's shape too: `dump -ma 1234 C:\dumps`, `-n 3 -s 10` for several dumps spaced in time,
// `-m 500` / `-ml 200` to wait until the commit crosses a size, `-w NAME` to wait for the process.
// Prints the estimate, progress while the file grows, and the outcome as text or as
// schema-checked JSON (schemas/dumpResult.schema.json).
import { checkOutWritable, defaultOutDir, outStamp } from '../default-out.js';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DIALECT_NAMES, isDialectName } from '../../engine/dialects/index.js';
import { errorMessage, UsageError } from '../../errors.js';
import { parseCount, parseDuration } from '../../units.js';
import type { DumpResult } from '../../workflows/dump/dump.js';
import {
  DEFAULT_SERIES_INTERVAL_MS,
  dumpSeries,
  type DumpSeriesEvent,
  type DumpSeriesOptions,
} from '../../workflows/dump/dump-series.js';
import { defaultEngine } from '../../workflows/process-lookup.js';
import { validate } from '../../report/schemas.js';
import type { CommandContext } from '../command-context.js';
import {
  addTriggerOptions,
  applyTriggerOptions,
  hasTrigger,
  refuseTriggerCombinations,
  TriggerSummary,
  triggerWords,
  type TriggerCliOptions,
} from './dump-triggers.js';
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
  oneTarget,
  printError,
  ProcDumpStyleCommand,
  symbolPathOf,
} from '../options.js';

export interface DumpCliOptions extends TriggerCliOptions {
  pid?: string;
  name?: string;
  full?: boolean;
  mini?: boolean;
  // count, wait and the trigger options come from TriggerCliOptions (dump-triggers.ts)
  interval?: string;
  poll?: string;
  out?: string;
  engine?: string;
  overwrite?: boolean;
  json?: boolean;
  estimate?: boolean;
  debugger?: string;
  symbols?: string;
  symbolPath?: string;
  record?: string;
  /** ProcDump's bare `-w` (`dump -ma app.exe -w`): wait for the NAME operand to start. */
  waitForOperand?: boolean;
}

/** CLI text (options and the `[target] [dir]` operands) → workflow options. */
export function dumpOptionsFromCli(
  cli: DumpCliOptions,
  env: NodeJS.ProcessEnv = process.env,
  operands: readonly string[] = [],
  now: Date = new Date(),
): Omit<DumpSeriesOptions, 'signal' | 'onEvent'> {
  // With the target given by option (-p, -pn/--name, -w), a lone operand is the folder:
  // `dump -pn w3wp C:\dumps` as well as ProcDump's `dump w3wp C:\dumps`.
  const byOption = cli.pid !== undefined || cli.name !== undefined || cli.wait !== undefined;
  const [targetOperand, dirOperand, extra] =
    byOption && operands.length === 1 ? [undefined, operands[0], undefined] : operands;
  if (extra !== undefined) {
    throw new UsageError(`too many operands: ${operands.join(' ')} (give TARGET [DIR])`);
  }
  const target = oneTarget(cli, targetOperand, 'dump -ma app.exe -w');
  if (
    dirOperand !== undefined &&
    cli.out !== undefined &&
    resolve(dirOperand) !== resolve(cli.out)
  ) {
    throw new UsageError(`give the output folder once: ${dirOperand} or --out ${cli.out}`);
  }
  if (cli.full === true && cli.mini === true)
    throw new UsageError('--full and --mini exclude each other (-ma / -mm)');
  if (cli.commitAbove !== undefined && cli.commitBelow !== undefined)
    throw new UsageError('-m/--commit-above and -ml/--commit-below exclude each other');
  const engine = cli.engine ?? defaultEngine(env);
  if (!isDialectName(engine)) {
    throw new UsageError(`--engine must be ${DIALECT_NAMES.join(' or ')}, got ${engine}`);
  }
  refuseTriggerCombinations(cli);
  const count = cli.count === undefined ? 1 : parseCount(cli.count, '-n/--count', 1);
  const options: Omit<DumpSeriesOptions, 'signal' | 'onEvent'> = {
    engine,
    target,
    kind: cli.mini === true ? 'mini' : 'full',
    outDir: resolve(dirOperand ?? cli.out ?? defaultOutDir('dump', now)),
    overwrite: cli.overwrite === true,
    estimate: cli.estimate !== false,
    count,
    intervalMs:
      cli.interval === undefined
        ? DEFAULT_SERIES_INTERVAL_MS
        : parseDuration(cli.interval, '--interval'),
    env,
  };
  applyTriggerOptions(cli, options);
  if (cli.poll !== undefined) options.pollMs = parseDuration(cli.poll, '--poll');
  if (cli.debugger !== undefined) options.debuggerPath = cli.debugger;
  const symbolPath = symbolPathOf(cli);
  if (symbolPath !== undefined) options.symbolPath = symbolPath;
  if (cli.record !== undefined) {
    options.recordPath = join(resolve(cli.record), `dump-${outStamp(now)}.jsonl`);
  }
  return options;
}

/** `19:02:03` from an ISO time, as ProcDump stamps its lines. */
function clock(iso: string): string {
  return new Date(iso).toTimeString().slice(0, 8);
}

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

export function formatDumpEvent(event: DumpSeriesEvent): string | null {
  switch (event.type) {
    case 'resolved':
      return `Process: ${event.name} (${event.pid})`;
    case 'estimate':
      return event.bytes === null
        ? `Estimated dump size: unknown${event.note === undefined ? '' : ` (${event.note})`}`
        : `Estimated dump size: ${mb(event.bytes)} (committed memory, ${event.source ?? ''})`;
    case 'attached':
      return `Attached in ${Math.round(event.ms)} ms; writing...`;
    case 'progress':
      return `  ${mb(event.bytes)} written, ${mb(event.bytesPerSecond)}/s`;
    case 'written':
      return `Dump complete: ${mb(event.bytes)} written in ${(event.writeMs / 1000).toFixed(2)} seconds`;
    case 'detached':
      return event.detached
        ? 'Detached; the process runs on.'
        : 'WARNING: the debugger did not confirm the detach.';
    case 'note':
      return `note: ${event.message}`;
    case 'waiting':
      return `Waiting for a process named ${event.name} to start...`;
    case 'commit': {
      const op = event.direction === 'above' ? '>=' : '<';
      const now =
        event.bytes === null ? `unknown (${event.note ?? 'no reading'})` : mb(event.bytes);
      return `Commit of pid ${event.pid}: ${now}; trigger ${op} ${mb(event.thresholdBytes)}${event.fired ? ': TRIGGERED' : ''}`;
    }
    case 'dumped':
      return event.count > 1 ? `Dump ${event.index} of ${event.count}: ${event.result.path}` : null;
    case 'pause':
      return `Next dump (${event.next}) in ${(event.ms / 1000).toFixed(1)} s...`;
    case 'cpu':
      return `CPU of pid ${event.pid}: ${event.reading.percent.toFixed(1)}%${event.reading.met ? `, held ${(event.reading.heldMs / 1000).toFixed(1)} s` : ''}`;
    case 'windows':
      return `Windows of pid ${event.pid}: ${event.reading.windows}, ${event.reading.silent} not answering${event.reading.silent > 0 ? ` (for ${(event.reading.silentForMs / 1000).toFixed(1)} s)` : ''}`;
    case 'counter':
      return `${event.path}: ${event.value}${event.heldMs > 0 ? `, held ${(event.heldMs / 1000).toFixed(1)} s` : ''}`;
    case 'armed':
      return `Waiting for pid ${event.pid} to exit: stopping it at ${event.what}...`;
    case 'fired':
      return `[${clock(event.line.time)}] Trigger: ${event.firing.reason}`;
    case 'trigger-event':
      return event.line.action === 'dump-failed'
        ? `[${clock(event.line.time)}] Dump after ${event.line.trigger} FAILED: ${event.line.error ?? ''}`
        : null;
    case 'ended':
      return event.message;
  }
}

export function formatDumpResult(r: DumpResult): string {
  const lines = [
    `${r.path}`,
    `  ${r.bytes} bytes (${mb(r.bytes)}), ${r.actualKind ?? 'unknown'} dump${r.kind !== r.actualKind ? ` (asked for ${r.kind})` : ''}`,
    `  write ${Math.round(r.writeMs)} ms; target suspended ${Math.round(r.suspendedMs)} ms; total ${Math.round(r.totalMs)} ms`,
    `  verified: ${r.verified ? 'yes' : `NO (${r.problems.join('; ')})`}; pid ${r.pid}; target ${r.targetAlive ? 'still running' : 'NOT found running'}`,
  ];
  for (const note of r.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}

export function registerDump(context: CommandContext): void {
  const command = new ProcDumpStyleCommand('dump', [
    ...LIVE_PROCESS_HABITS,
    '-ma',
    '-mm',
    '-ml',
    '-pn',
    '-s',
    '-cl',
    '-h',
    '-pl',
  ])
    .description(
      'Write a dump of a running process without harming it, now or when a trigger fires (commit, CPU, exit); one or several (procdump -ma PID DIR).',
    )
    .argument('[target]', 'the process: a decimal PID or an image name (w3wp or w3wp.exe)')
    .argument(
      '[dir]',
      'folder for the dumps (same as --out; default ./cdb-harness-out/dump-<yyMMdd_HHmmss>)',
    );
  addTargetOptions(command, { wait: true });
  command
    .option('--full', 'full-memory dump (.dump /ma; default; ProcDump -ma)')
    .option('--mini', 'mini dump (.dump /m; ProcDump -mm)')
    .addOption(countOption('-n, --count <n>', 'write N dumps (ProcDump -n; default 1)'))
    .addOption(
      durationOption(
        '--interval <duration>',
        `time between dumps: 10, 30s, 5m; with -c/-cl how long the CPU condition must hold (ProcDump -s; default ${DEFAULT_SERIES_INTERVAL_MS / 1000}s)`,
      ),
    );
  addTriggerOptions(command);
  command.addOption(
    durationOption(
      '--poll <duration>',
      'how often the commit or the CPU is read for -m/-ml/-c/-cl (default 1s)',
    ),
  );
  addOutOption(command, 'folder for the dumps (default ./cdb-harness-out/dump-<yyMMdd_HHmmss>)');
  addLiveEngineOption(command);
  command
    .option('--overwrite', 'replace an existing file of the same name')
    .option('--no-estimate', 'skip the size estimate');
  addJsonOption(
    command,
    'print the result as JSON (schemas/dumpResult.schema.json; one line per dump with -n > 1)',
  );
  addDebuggerOption(command);
  addSymbolOptions(command);
  addRecordOption(command);
  command
    .addHelpText(
      'after',
      `
cdb attaches noninvasively (-pv): the target is suspended only while the dump is written, and
ending the session cannot kill it. winedbg attaches, writes "minidump", detaches; it can only
write normal (mini) dumps, so --full under winedbg yields a normal dump (said in the output).

ProcDump spellings: -ma, -mm, -n COUNT, -s SECONDS, -m MB, -ml MB, -w NAME (or NAME -w), -o
(--overwrite), -accepteula (ignored), and a PID or NAME operand followed by a folder; cdb's -p PID
and -pn NAME. -x (launch) is watch's: cdb-harness watch -x DIR app.exe; -wer is refused.

--engine dotnet-dump (a .NET process on Linux): each dump is "dotnet-dump collect --type Full"
(-mm: Mini), an ELF core; -m/-ml read the commit (rss + swap) and -c/-cl the CPU time from /proc;
-t is refused (no exit event on the .NET diagnostics port). The commit (-m/-ml) is the process's
committed private memory: winedbg "info maps" from outside (no suspension), cdb a short
noninvasive attach running "!address -summary" (MEM_COMMIT). A bare size is MB, as in ProcDump.

Triggers (one at a time; each firing and each dump is a line of triggers.ndjson beside the dumps,
schemas/triggerEvent.schema.json; --json then prints a summary, schemas/dumpTriggerSummary):
  -c/-cl PERCENT [-u] [-s SECONDS]  CPU at or above / below PERCENT for -s consecutive seconds
      (default 10), of all cores or with -u of one core. Read from outside, never suspending the
      target: on Windows the process's own CPU times, under Wine the CPU time of the Linux
      process hosting the Windows pid (/proc). -n N: N dumps, each after the condition held again.
  -m/-ml SIZE[,SIZE...]             commit crosses SIZE; a list (ProcDump for Linux) writes one
      dump at each threshold crossed, none twice. --commit-step 20MB: one every 20 MB grown.
  -t                                the process is about to exit: cdb attaches invasively (-pd)
      and stops at ntdll!RtlExitUserProcess or the exit-process event (sxe epr); the dump shows the
      exit. winedbg cannot stop a process at its exit and is refused.
  -h [--hung-after 5s]              a top-level window has not answered WM_NULL for 5 s (ProcDump's
      fixed value; --hung-after changes it). Each poll runs build/native/window-probe.exe beside
      the target (through the same Wine on Linux; it needs a display), never attaching.
  -p/-pl "\\Counter\\Path" VALUE  a Windows PDH counter at or above / below VALUE for -s
      seconds, read with typeperf (Windows, --engine cdb); refused on Linux and Wine, which have
      no typeperf.
  Refused combinations: -c with -cl, -u without -c/-cl, two triggers at once, -n with -t or
  with a -m list.
  The target exiting before any trigger fired: exit code 5, nothing written.

File name: <process>.exe_<pid>_<yyMMdd>_<HHmmss>.dmp (-n > 1: _2, _3 … when the second repeats),
mode 0600; never overwritten without --overwrite. A failed write leaves nothing, or
<name>.dmp.partial when some bytes were written.

Exit codes: 0 every dump written and verified, 4 written but not verified (or -ma under winedbg,
which writes a normal dump), 5 target problem
(gone, access denied, already being debugged, wrong bitness), 1 other failure (disk full,
debugger error), 2 usage error, 3 no debugger found, 130 interrupted (dumps written are kept).

Examples:
  cdb-harness dump -ma 1234 C:\\dumps                 ProcDump's shape: full dump of pid 1234
  cdb-harness dump -mm w3wp --json                   mini dump of the one w3wp, result as JSON
  cdb-harness dump -ma -n 3 -s 30 -pn w3wp C:\\dumps   three dumps, 30 s apart
  cdb-harness dump -ma -m 500 1234 C:\\dumps          wait until the commit reaches 500 MB
  cdb-harness dump -ml 100MB --pid 1234               wait until the commit drops below 100 MB
  cdb-harness dump -w app.exe -ma                     wait for app.exe to start, then dump it
  cdb-harness dump -ma -c 80 -s 5 -n 3 w3wp C:\\dumps   3 dumps, each after 5 s at >= 80% CPU
  cdb-harness dump -cl 5 -u -s 10 1234               dump once CPU stays below 5% of a core
  cdb-harness dump -ma -m 27,47,67,87 1234           one dump at each commit step crossed
  cdb-harness dump -ma -t 1234 --engine cdb          dump when the process is about to exit`,
    )
    .action(async (target: string | undefined, dir: string | undefined, cli: DumpCliOptions) => {
      const operands = [target, dir].filter((o): o is string => o !== undefined);
      context.setExitCode(await runDump(cli, operands));
    });
  attach(context.program, command);
}

export async function runDump(
  cli: DumpCliOptions,
  operands: readonly string[] = [],
): Promise<number> {
  let options: Omit<DumpSeriesOptions, 'signal' | 'onEvent'>;
  try {
    options = dumpOptionsFromCli(cli, process.env, operands);
    checkOutWritable(options.outDir);
    if (cli.record !== undefined) mkdirSync(resolve(cli.record), { recursive: true });
  } catch (error) {
    printError(error);
    return exitCodeFor(error);
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on('SIGINT', onSignal);
  const results: DumpResult[] = [];
  const several = (options.count ?? 1) > 1;
  // A triggered run's --json is one summary at the end (every firing and every dump).
  const summary = hasTrigger(options) ? new TriggerSummary(options, triggerWords(cli)) : null;
  const printSummary = (reason: 'done' | 'interrupted' | 'error', error?: unknown) => {
    if (summary === null || cli.json !== true) return;
    const data = summary.end(
      reason,
      error === undefined ? undefined : (errorMessage(error).split('\n')[0] ?? ''),
    );
    const check = validate('dumpTriggerSummary', data);
    if (!check.ok)
      process.stderr.write(
        `warning: summary does not match its schema: ${check.errors.join('; ')}\n`,
      );
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  };
  const print = (result: DumpResult) => {
    if (summary !== null && cli.json === true) return;
    if (cli.json === true) {
      const check = validate('dumpResult', result);
      if (!check.ok)
        process.stderr.write(
          `warning: result does not match its schema: ${check.errors.join('; ')}\n`,
        );
      process.stdout.write(
        several ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`,
      );
    } else {
      process.stdout.write(`${formatDumpResult(result)}\n`);
    }
  };
  try {
    await dumpSeries({
      ...options,
      signal: controller.signal,
      onEvent: (event) => {
        summary?.onEvent(event);
        const text = formatDumpEvent(event);
        if (text !== null) process.stderr.write(`${text}\n`);
        if (event.type === 'dumped') {
          results.push(event.result);
          print(event.result);
        }
      },
    });
    printSummary('done');
    // -ma asked for a full dump: one the debugger could only write as a normal (mini) dump
    // (winedbg) is not what was asked for, whatever its note says (exit 4, with the reason).
    const notFull = results.filter((r) => r.actualKind === 'mini' && cli.full === true);
    for (const r of notFull) {
      printError(
        `-ma asked for a full dump; ${r.engine} wrote a normal (mini) dump: ${r.path} (use --engine cdb for a full dump, or -mm to ask for what it writes)`,
      );
    }
    return results.every((r) => r.verified) && notFull.length === 0
      ? ExitCode.Ok
      : ExitCode.Partial;
  } catch (error) {
    printError(error);
    printSummary(controller.signal.aborted ? 'interrupted' : 'error', error);
    if (controller.signal.aborted) return ExitCode.Interrupted;
    return exitCodeFor(error);
  } finally {
    process.off('SIGINT', onSignal);
  }
}
