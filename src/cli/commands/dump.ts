// `cdb-harness dump` (issue #8): write a dump of a running process now, without harming it
// (procdump -ma PID DIR). Prints the estimate, progress while the file grows, and the outcome as
// text or as schema-checked JSON (schemas/dumpResult.schema.json).
import { resolve } from 'node:path';
import { DIALECT_NAMES, isDialectName } from '../../engine/dialects/index.js';
import { errorMessage, UsageError } from '../../errors.js';
import {
  dumpProcess,
  type DumpEvent,
  type DumpOptions,
  type DumpResult,
} from '../../workflows/dump/dump.js';
import { defaultEngine } from '../../workflows/process-lookup.js';
import { validate } from '../../report/schemas.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';

export interface DumpCliOptions {
  pid?: string;
  name?: string;
  full?: boolean;
  mini?: boolean;
  out?: string;
  engine?: string;
  overwrite?: boolean;
  json?: boolean;
  estimate?: boolean;
  debugger?: string;
  symbolPath?: string;
}

export function dumpOptionsFromCli(
  cli: DumpCliOptions,
  env: NodeJS.ProcessEnv = process.env,
): Omit<DumpOptions, 'signal' | 'onEvent'> {
  if ((cli.pid === undefined) === (cli.name === undefined)) {
    throw new UsageError('give exactly one of --pid N or --name NAME');
  }
  if (cli.pid !== undefined && !/^\d+$/.test(cli.pid)) {
    throw new UsageError(`--pid must be a decimal process id, got ${cli.pid}`);
  }
  if (cli.full === true && cli.mini === true)
    throw new UsageError('--full and --mini exclude each other');
  const engine = cli.engine ?? defaultEngine(env);
  if (!isDialectName(engine)) {
    throw new UsageError(`--engine must be ${DIALECT_NAMES.join(' or ')}, got ${engine}`);
  }
  const options: Omit<DumpOptions, 'signal' | 'onEvent'> = {
    engine,
    target: cli.pid !== undefined ? { pid: Number(cli.pid) } : { name: cli.name ?? '' },
    kind: cli.mini === true ? 'mini' : 'full',
    outDir: resolve(cli.out ?? '.'),
    overwrite: cli.overwrite === true,
    estimate: cli.estimate !== false,
    env,
  };
  if (cli.debugger !== undefined) options.debuggerPath = cli.debugger;
  if (cli.symbolPath !== undefined) options.symbolPath = cli.symbolPath;
  return options;
}

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

export function formatDumpEvent(event: DumpEvent): string | null {
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
  context.program
    .command('dump')
    .description(
      'Write a dump of a running process now, without harming it (procdump -ma PID DIR).',
    )
    .option('--pid <pid>', 'the process id (decimal)')
    .option('--name <name>', 'the one process with this image name (w3wp or w3wp.exe)')
    .option('--full', 'full-memory dump (.dump /ma; default)')
    .option('--mini', 'mini dump (.dump /m)')
    .option('--out <dir>', 'directory for the dump (default: current directory)')
    .option('--engine <engine>', 'cdb or winedbg (default: cdb when found, else winedbg)')
    .option('--overwrite', 'replace an existing file of the same name')
    .option('--no-estimate', 'skip the size estimate')
    .option('--json', 'print the result as JSON (schemas/dumpResult.schema.json)')
    .option('--debugger <path>', 'the cdb.exe (or winedbg) to run')
    .option('--symbol-path <path>', 'cdb symbol path (-y)')
    .addHelpText(
      'after',
      `
cdb attaches noninvasively (-pv): the target is suspended only while the dump is written, and
ending the session cannot kill it. winedbg attaches, writes "minidump", detaches; it can only
write normal (mini) dumps, so --full under winedbg yields a normal dump (said in the output).

File name: <process>.exe_<pid>_<yyMMdd>_<HHmmss>.dmp, mode 0600; never overwritten without
--overwrite. A failed write leaves nothing, or <name>.dmp.partial when some bytes were written.

Exit codes: 0 written and verified, 4 written but not verified, 5 target problem (gone, access
denied, already being debugged, wrong bitness), 1 other failure (disk full, debugger error).

Examples:
  cdb-harness dump --name w3wp --out C:\\dumps
  cdb-harness dump --pid 1234 --mini --json`,
    )
    .action(async (cli: DumpCliOptions) => {
      context.setExitCode(await runDump(cli));
    });
}

export async function runDump(cli: DumpCliOptions): Promise<number> {
  let options: Omit<DumpOptions, 'signal' | 'onEvent'>;
  try {
    options = dumpOptionsFromCli(cli);
  } catch (error) {
    process.stderr.write(`cdb-harness dump: ${errorMessage(error)}\n`);
    return exitCodeFor(error);
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on('SIGINT', onSignal);
  try {
    const result = await dumpProcess({
      ...options,
      signal: controller.signal,
      onEvent: (event) => {
        const text = formatDumpEvent(event);
        if (text !== null) process.stderr.write(`${text}\n`);
      },
    });
    if (cli.json === true) {
      const check = validate('dumpResult', result);
      if (!check.ok)
        process.stderr.write(
          `warning: result does not match its schema: ${check.errors.join('; ')}\n`,
        );
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      process.stdout.write(`${formatDumpResult(result)}\n`);
    }
    return result.verified ? ExitCode.Ok : ExitCode.Partial;
  } catch (error) {
    process.stderr.write(`cdb-harness dump: ${errorMessage(error)}\n`);
    return exitCodeFor(error);
  } finally {
    process.off('SIGINT', onSignal);
  }
}
