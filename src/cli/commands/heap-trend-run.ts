// Runs `cdb-harness heap-trend` from its parsed command line: a live target (found, or waited
// for with -w) sampled until the count, the duration or Ctrl-C; or the same report from files
// already written (--from-dumps, --from-gcdumps). Returns the exit code.
import type { JsonSink } from '../cyborg.js';
import { resolve } from 'node:path';
import { checkOutWritable, defaultOutDir } from '../default-out.js';
import { UsageError } from '../../errors.js';
import { resolveProcess } from '../../workflows/process-lookup.js';
import {
  runHeapTrendFromDumps,
  type FromDumpsOptions,
} from '../../workflows/heap-trend/from-dumps.js';
import {
  runHeapTrendFromGcDumps,
  type FromGcDumpsOptions,
} from '../../workflows/heap-trend/from-gcdumps.js';
import { runHeapTrend } from '../../workflows/heap-trend/run-heap-trend.js';
import { waitForProcessStart } from '../../workflows/dump/dump-series.js';
import { parseCount, parseDuration, parseSizeKb } from '../../units.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';
import { printError } from '../options.js';
import { currentPlatform } from '../../platform/common/host.js';
import { exitCodeOfReport, formatProgress, formatSummary } from './heap-trend-text.js';
import {
  DEFAULT_INTERVAL,
  heapTrendOptionsFromCli,
  type HeapTrendCliOptions,
  type HeapTrendPlan,
} from './heap-trend-options.js';

/** How often -w polls the process list (as dump -w does). */
const WAIT_POLL_MS = 500;

/**
 * `--from-dumps` and `--from-gcdumps`: no target, no sampling; the same report from files already
 * written, each at its own time (dumps through their reader or dotnet-dump; gcdumps read here).
 */
async function runFromFilesCli(
  cli: HeapTrendCliOptions,
  kind: 'dumps' | 'gcdumps',
  sink: JsonSink,
): Promise<number> {
  const flag = kind === 'dumps' ? '--from-dumps' : '--from-gcdumps';
  try {
    if (cli.pid !== undefined || cli.name !== undefined || cli.wait !== undefined) {
      throw new UsageError(`${flag} reads ${kind}: give no --pid, --name or --wait`);
    }
    const common: Omit<FromGcDumpsOptions, 'paths'> = {
      outDir: resolve(cli.out ?? defaultOutDir('heap-trend')),
    };
    if (cli.limit !== undefined) common.limitKb = parseSizeKb(cli.limit, '--limit');
    if (cli.minGrowth !== undefined) {
      common.rule = { minGrowthKb: parseSizeKb(cli.minGrowth, '--min-growth') };
    }
    if (cli.retention !== undefined) {
      common.retentionTypes = parseCount(cli.retention, '--retention', 0);
    }
    const { report, files } =
      kind === 'dumps'
        ? await runHeapTrendFromDumps({
            ...common,
            paths: cli.fromDumps ?? [],
            ...(cli.debugger === undefined ? {} : { debuggerPath: cli.debugger }),
            ...(cli.retentionBudget === undefined
              ? {}
              : {
                  retentionBudgetMs: parseDuration(cli.retentionBudget, '--retention-budget'),
                }),
          } satisfies FromDumpsOptions)
        : await runHeapTrendFromGcDumps({ ...common, paths: cli.fromGcdumps ?? [] });
    for (const input of report.inputs ?? []) {
      if (!input.used) process.stderr.write(`skipped ${input.file}: ${input.error ?? ''}\n`);
    }
    await sink.write(`${JSON.stringify(report, null, 2)}\n`);
    if (sink.textOnStdout) process.stdout.write(`${formatSummary(report, files)}\n`);
    return report.status === 'completed' ? exitCodeOfReport(report) : ExitCode.Failure;
  } catch (error) {
    printError(error);
    return exitCodeFor(error);
  }
}

export async function runHeapTrendCli(
  cli: HeapTrendCliOptions,
  operand: string | undefined,
  /** Where report.json goes: stdout (--json), a file (--cyborg), or nowhere. */
  sink: JsonSink,
): Promise<number> {
  if (cli.fromDumps !== undefined && cli.fromGcdumps !== undefined) {
    printError(new UsageError('--from-dumps and --from-gcdumps exclude each other'));
    return ExitCode.Usage;
  }
  if (cli.fromGcdumps !== undefined) {
    if (operand !== undefined) {
      printError(new UsageError(`--from-gcdumps reads gcdump files: give no target (${operand})`));
      return ExitCode.Usage;
    }
    return runFromFilesCli(cli, 'gcdumps', sink);
  }
  if (cli.fromDumps !== undefined) {
    if (operand !== undefined) {
      printError(new UsageError(`--from-dumps reads dumps: give no target (${operand})`));
      return ExitCode.Usage;
    }
    return runFromFilesCli(cli, 'dumps', sink);
  }
  let plan: HeapTrendPlan;
  try {
    plan = heapTrendOptionsFromCli(cli, process.env, currentPlatform(), operand);
    checkOutWritable(plan.outDir);
  } catch (error) {
    printError(error);
    return exitCodeFor(error);
  }
  const controller = new AbortController();
  const onSignal = (): void => {
    process.stderr.write('Stopping after the current sample; writing the report...\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  try {
    const { target, ...options } = plan;
    const lookup = {
      engine: plan.engine,
      ...(plan.env === undefined ? {} : { env: plan.env }),
      ...(plan.debuggerPath === undefined ? {} : { debuggerPath: plan.debuggerPath }),
      signal: controller.signal,
    };
    if ('waitFor' in target) {
      process.stderr.write(`Waiting for a process named ${target.waitFor} to start...\n`);
    }
    const found =
      'waitFor' in target
        ? await waitForProcessStart(target.waitFor, lookup, WAIT_POLL_MS, controller.signal)
        : await resolveProcess(target, lookup);
    process.stderr.write(
      `heap-trend: ${found.name} (pid ${found.pid}), engine ${plan.engine}, every ${cli.interval ?? DEFAULT_INTERVAL}; output in ${plan.outDir}\n`,
    );
    let previous: number | null = null;
    const { report, files } = await runHeapTrend({
      ...options,
      pid: found.pid,
      name: found.name,
      signal: controller.signal,
      onProgress: (event) => {
        process.stderr.write(`${formatProgress(event, previous)}\n`);
        if (event.kind === 'sample') previous = event.sample.totalCommittedKb;
      },
    });
    await sink.write(`${JSON.stringify(report, null, 2)}\n`);
    if (sink.textOnStdout) process.stdout.write(`${formatSummary(report, files)}\n`);
    return exitCodeOfReport(report);
  } catch (error) {
    // Ctrl-C while waiting for the process (-w) or finding it: interrupted, not a target problem.
    if (controller.signal.aborted) {
      process.stderr.write('interrupted before the first sample; nothing was written\n');
      return ExitCode.Interrupted;
    }
    printError(error);
    return exitCodeFor(error);
  } finally {
    process.off('SIGINT', onSignal);
  }
}
