// `cdb-harness heap-trend`'s command line turned into the workflow's options (issue #7): the
// target, the engine and its tiers, the sampling and the retention flags; every refusal is a
// UsageError (exit 2) before anything runs.
import { resolve } from 'node:path';
import { defaultOutDir } from '../default-out.js';
import { DIALECT_NAMES, getDialect, isDialectName } from '../../engine/dialects/index.js';
import { DebuggerNotFoundError, UsageError } from '../../errors.js';
import { defaultEngine } from '../../workflows/process-lookup.js';
import type { HeapTrendOptions } from '../../workflows/heap-trend/run-heap-trend.js';
import { parseCount, parseDuration, parseSizeKb, parseSizeList } from '../../units.js';
import { windowsOnlyMessage } from '../../workflows/windows-tools.js';
import { oneTarget, symbolPathOf, type ProcessTarget } from '../options.js';
import { currentPlatform, isWindowsHost } from '../../platform/index.js';

export interface HeapTrendCliOptions {
  pid?: string;
  name?: string;
  interval?: string;
  samples?: string;
  duration?: string;
  engine?: string;
  out?: string;
  dumpAt?: string;
  umdh?: boolean;
  umdhEvery?: string;
  umdhSkipCheck?: boolean;
  limit?: string;
  minGrowth?: string;
  json?: boolean;
  /** --cyborg FILE: report.json into FILE, the summary on stdout. */
  cyborg?: string;
  debugger?: string;
  symbols?: string;
  symbolPath?: string;
  clr?: boolean;
  keepDumps?: boolean;
  retention?: string;
  retentionBudget?: string;
  fromDumps?: string[];
  fromGcdumps?: string[];
  typesEvery?: string;
  dumpPerSample?: boolean;
  wait?: string;
  /** ProcDump's bare `-w` after the NAME operand. */
  waitForOperand?: boolean;
}

export type HeapTrendPlan = Omit<HeapTrendOptions, 'pid' | 'signal' | 'onProgress'> & {
  target: ProcessTarget;
};

export const DEFAULT_INTERVAL = '5s';

/** CLI text → workflow options; throws UsageError (exit 2) before anything runs. */
export function heapTrendOptionsFromCli(
  cli: HeapTrendCliOptions,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = currentPlatform(),
  operand?: string,
): HeapTrendPlan {
  const target = oneTarget(cli, operand, 'heap-trend app.exe -w');
  if (cli.samples !== undefined && cli.duration !== undefined) {
    throw new UsageError('--samples and --duration exclude each other');
  }
  // --clr without an engine: the managed series come from dotnet-dump.
  const engine =
    cli.engine ??
    (cli.clr === true && !isWindowsHost(platform) ? 'dotnet-dump' : defaultEngine(env));
  if (!isDialectName(engine)) {
    throw new UsageError(`--engine must be ${DIALECT_NAMES.join(' or ')}, got ${engine}`);
  }
  const managed = getDialect(engine).heapSampling?.style === 'dump-per-sample';
  if (cli.clr === true && !managed && !getDialect(engine).abilities.sos) {
    throw new UsageError(
      `--clr needs SOS: use --engine cdb (Windows) or --engine dotnet-dump (Linux); ${engine} has no SOS`,
    );
  }
  if (managed && cli.dumpAt !== undefined) {
    throw new UsageError(
      `--dump-at does not apply to --engine ${engine}: every sample is a dump already (keep them with --keep-dumps)`,
    );
  }
  if (
    !managed &&
    (cli.keepDumps === true || cli.retention !== undefined || cli.retentionBudget !== undefined)
  ) {
    throw new UsageError(
      '--keep-dumps, --retention and --retention-budget go with --clr (--engine dotnet-dump)',
    );
  }
  const intervalMs = parseDuration(cli.interval ?? DEFAULT_INTERVAL, '--interval');
  const plan: HeapTrendPlan = {
    target,
    engine,
    intervalMs,
    outDir: resolve(cli.out ?? defaultOutDir('heap-trend')),
    env,
  };
  if (cli.samples !== undefined) {
    plan.samples = parseCount(cli.samples, '--samples', 1);
  }
  if (cli.duration !== undefined) plan.durationMs = parseDuration(cli.duration, '--duration');
  if (cli.dumpAt !== undefined) plan.dumpAtKb = parseSizeList(cli.dumpAt, '--dump-at');
  if (cli.limit !== undefined) plan.limitKb = parseSizeKb(cli.limit, '--limit');
  if (cli.minGrowth !== undefined) {
    plan.rule = { minGrowthKb: parseSizeKb(cli.minGrowth, '--min-growth') };
  }
  if (cli.umdh === true) {
    if (!isWindowsHost(platform) && env['UMDH_PATH'] === undefined) {
      throw new DebuggerNotFoundError(windowsOnlyMessage('umdh'));
    }
    const every = cli.umdhEvery === undefined ? 5 : parseCount(cli.umdhEvery, '--umdh-every', 1);
    plan.umdh = { every, ...(cli.umdhSkipCheck === true ? { skipUstCheck: true } : {}) };
  }
  if (cli.clr === true && !managed) plan.clr = true;
  if ((cli.typesEvery !== undefined || cli.dumpPerSample === true) && !managed) {
    throw new UsageError('--types-every and --dump-per-sample go with --clr on Linux (.NET)');
  }
  if (cli.typesEvery !== undefined && cli.dumpPerSample === true) {
    throw new UsageError(
      '--types-every is for the gcdump tier; --dump-per-sample reads types from every dump',
    );
  }
  if (cli.typesEvery !== undefined)
    plan.typesEvery = parseCount(cli.typesEvery, '--types-every', 1);
  if (cli.dumpPerSample === true) plan.dumpPerSample = true;
  if (cli.keepDumps === true) plan.keepDumps = true;
  if (cli.retention !== undefined)
    plan.retentionTypes = parseCount(cli.retention, '--retention', 0);
  if (cli.retentionBudget !== undefined) {
    plan.retentionBudgetMs = parseDuration(cli.retentionBudget, '--retention-budget');
  }
  if (cli.debugger !== undefined) plan.debuggerPath = cli.debugger;
  const symbolPath = symbolPathOf(cli);
  if (symbolPath !== undefined) plan.symbolPath = symbolPath;
  return plan;
}
