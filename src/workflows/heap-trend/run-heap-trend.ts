// heap-trend: sample a live process's heaps every interval, append each sample to
// OUT/samples.ndjson as it is taken, write threshold dumps and umdh snapshots along the way, and
// end with report.json, report.md and report.html. The run never prints: progress goes to
// `onProgress`, and every way the run can end still produces the report:
// - the samples/duration budget is used up             → status `completed`;
// - the caller aborts (Ctrl-C in the CLI)              → `interrupted`, the samples so far kept;
// - the target exits                                   → `target-exited`, reported up to then;
// - sampling fails 3 times in a row                    → `failed`, with the last error.
//
// The run is a short orchestration of named steps: prepare the output folder, check umdh, start
// the sampler the dialect calls for, run the sampling loop (sampling-loop.ts), finish umdh, write
// the reports.
//
// Test seam: `debuggerCommandFor` (see sampler.ts) replaces the debugger command line per use, so
// a test can point sample i at cdb-emulator scenario i.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import { shortErrorMessage, UsageError } from '../../errors.js';
import { renderHeapTrendHtml } from '../../report/heap-trend/html.js';
import { renderHeapTrendMarkdown } from '../../report/heap-trend/markdown.js';
import { buildHeapTrendReport, secondaryAnalysis } from '../../report/heap-trend/report.js';
import type {
  HeapTrendReport,
  HeapTrendSample,
  HeapTrendStatus,
  RetentionEntry,
  SuspectRule,
  ThresholdDump,
} from '../../report/heap-trend/types.js';
import { assertValid } from '../../report/schemas.js';
import { createAttachSampler } from './attach-sampler.js';
import { createBareSessionSampler } from './bare-session-sampler.js';
import { createClrDumpSampler } from './clr-dump-sampler.js';
import { startClrTiersSampler, tiersEnd } from './clr-tiers-run.js';
import type { ClrCountersFeed, ClrTiersSampler } from './clr-tiers-sampler.js';
import type { DebuggerCommandFactory, HeapSampler, RetentionSampler } from './sampler.js';
import { isAbort, launchSettings, runSamplingLoop, type LoopOutcome } from './sampling-loop.js';
import { UmdhSteps } from './umdh-steps.js';
import { OptionsCheck } from '../check-options.js';

export interface HeapTrendUmdhOptions {
  /** Snapshot every N samples (plus the first sample and the end of the run). Default 5. */
  every?: number;
  umdhPath?: string;
  gflagsPath?: string;
  /** Skip the gflags +ust check (when gflags is unavailable but +ust is known to be on). */
  skipUstCheck?: boolean;
}

export interface HeapTrendOptions {
  pid: number;
  /** Image name (`leak.exe`): dump names, the umdh +ust check and the report title. */
  name?: string;
  engine: DialectName;
  intervalMs: number;
  /** Stop after this many samples. */
  samples?: number;
  /** Stop when this much time has passed (no sample starts after it). */
  durationMs?: number;
  outDir: string;
  /** `--dump-at` steps of total committed KB. */
  dumpAtKb?: readonly number[];
  /** `--limit`: projection target for the total commit, in KB. */
  limitKb?: number;
  umdh?: HeapTrendUmdhOptions;
  rule?: Partial<SuspectRule>;
  env?: NodeJS.ProcessEnv;
  debuggerPath?: string;
  symbolPath?: string;
  startTimeoutMs?: number;
  commandTimeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (event: HeapTrendProgress) => void;
  /** Test seam: the debugger command line per use (see sampler.ts). */
  debuggerCommandFor?: DebuggerCommandFactory;
  /** cdb only: whether the target still exists after a failed attach. */
  isTargetAlive?: (pid: number) => Promise<boolean>;
  /** cdb: also the .NET heap (SOS `!eeheap -gc`, `!dumpheap -stat -live`) in each attach. */
  clr?: boolean;
  /** Managed samples (dotnet-dump): keep each sample's dump in OUT/dumps (default: deleted). */
  keepDumps?: boolean;
  /** How many of the top suspect types get retention chains (default 3; 0: none). */
  retentionTypes?: number;
  /** Time budget of the retention step (default 60 s): past it, types are skipped with why. */
  retentionBudgetMs?: number;
  /** Objects per suspect type whose roots are asked for (default 5). */
  retentionObjects?: number;
  /**
   * Live .NET (dotnet-dump's dialect): the old path, a heap dump read by SOS every sample, instead
   * of the three tiers (counters every sample, a gcdump every `typesEvery`, retention at the end).
   */
  dumpPerSample?: boolean;
  /** Live .NET tiers: a gcdump every N samples (default 5; the first and last always). */
  typesEvery?: number;
  /** Live .NET tiers: the runtime's counters (clr-counters.ts); none: sizes from the gcdumps. */
  counters?: ClrCountersFeed;
}

export type HeapTrendProgress =
  | { kind: 'sample'; sample: HeapTrendSample }
  | { kind: 'sample-failed'; index: number; error: string }
  | { kind: 'dump'; dump: ThresholdDump }
  | { kind: 'umdh'; file: string }
  | { kind: 'end'; status: HeapTrendStatus; message?: string };

export interface HeapTrendFiles {
  samples: string;
  report: string;
  markdown: string;
  html: string;
}

export interface HeapTrendResult {
  report: HeapTrendReport;
  samples: HeapTrendSample[];
  files: HeapTrendFiles;
}

export async function runHeapTrend(options: HeapTrendOptions): Promise<HeapTrendResult> {
  new OptionsCheck('runHeapTrend', options)
    .optionalCount('pid', 0)
    .must('pid', (pid) => pid !== undefined, 'a process id')
    .text('outDir')
    .optionalMs('intervalMs')
    .must('intervalMs', (ms) => ms !== undefined, 'a positive number of milliseconds')
    .optionalCount('samples')
    .optionalMs('durationMs')
    .optionalFunction('onProgress')
    .optionalSignal();
  const { signal } = options;
  if (options.samples === undefined && options.durationMs === undefined && signal === undefined) {
    throw new UsageError('runHeapTrend needs samples, durationMs or a signal to stop it');
  }
  const files = await prepareOutDir(options.outDir);
  const startedAt = new Date().toISOString();
  const samples: HeapTrendSample[] = [];
  const dumps: ThresholdDump[] = [];
  const warnings: string[] = [];
  const umdh = await UmdhSteps.prepare(options, warnings);

  const started = await startSampler(options, warnings);
  let outcome: LoopOutcome = started.outcome ?? { status: 'completed' };
  let retention: RetentionEntry[] | undefined;
  let tiers: HeapTrendReport['tiers'];
  if (started.sampler !== undefined) {
    const { sampler } = started;
    outcome = await runSamplingLoop({
      options,
      sampler,
      umdh,
      samplesFile: files.samples,
      samples,
      dumps,
      warnings,
    }).catch(async (error: unknown) => {
      // The run cannot go on (a debugger piece is missing): nothing stays open behind it.
      await sampler.close().catch(() => undefined);
      throw error;
    });
    if (isTiersSampler(sampler)) {
      // Closed first: a gcdump still being taken joins the snapshots the retention reads.
      await sampler.close();
      ({ retention, tiers } = tiersEnd(options, sampler, samples));
    } else {
      if (isClrSampler(sampler)) {
        retention = await retentionStep(options, sampler, samples, warnings);
      }
      await sampler.close();
    }
  }
  const umdhResult = await umdh.finish(
    outcome.status !== 'target-exited' && signal?.aborted !== true,
  );

  const report = buildHeapTrendReport(samples, {
    target: { pid: options.pid, ...(options.name === undefined ? {} : { name: options.name }) },
    engine: options.engine,
    source: getDialect(options.engine).heapSampling?.source ?? 'heap',
    intervalMs: options.intervalMs,
    startedAt,
    endedAt: new Date().toISOString(),
    status: outcome.status,
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
    dumps,
    ...(umdhResult === undefined ? {} : { umdh: umdhResult }),
    warnings,
    ...(options.limitKb === undefined ? {} : { limitKb: options.limitKb }),
    ...(options.rule === undefined ? {} : { rule: options.rule }),
    ...(retention === undefined ? {} : { retention }),
    ...(tiers === undefined ? {} : { tiers }),
    ...managedNoteOf(options, samples),
  });
  await writeReports(files, report, samples);
  options.onProgress?.({
    kind: 'end',
    status: outcome.status,
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
  });
  return { report, samples, files };
}

/** The output folder, with a fresh samples.ndjson: it only ever holds this run's samples. */
export async function prepareOutDir(outDir: string): Promise<HeapTrendFiles> {
  const files: HeapTrendFiles = {
    samples: join(outDir, 'samples.ndjson'),
    report: join(outDir, 'report.json'),
    markdown: join(outDir, 'report.md'),
    html: join(outDir, 'report.html'),
  };
  await mkdir(outDir, { recursive: true });
  await writeFile(files.samples, '');
  return files;
}

/**
 * The sampler the dialect's heap sampling calls for: one short attach per sample (cdb), or one
 * bare debugger for the whole run (winedbg). A start that fails ends the run before any sample.
 */
async function startSampler(
  options: HeapTrendOptions,
  warnings: string[],
): Promise<{ sampler?: HeapSampler; outcome?: LoopOutcome }> {
  const { signal } = options;
  const timeouts = {
    ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
    ...(options.commandTimeoutMs === undefined
      ? {}
      : { commandTimeoutMs: options.commandTimeoutMs }),
  };
  const common = {
    engine: options.engine,
    pid: options.pid,
    ...launchSettings(options),
    ...timeouts,
  };
  try {
    const style = getDialect(options.engine).heapSampling?.style;
    if (style === undefined) {
      throw new UsageError(`heap-trend cannot sample memory with ${options.engine}`);
    }
    if (style === 'dump-per-sample' && options.dumpPerSample !== true) {
      return { sampler: await startClrTiersSampler(options, warnings) };
    }
    if (style === 'dump-per-sample') {
      return {
        sampler: createClrDumpSampler({
          engine: options.engine,
          pid: options.pid,
          dir: join(options.outDir, 'dumps'),
          ...(options.keepDumps === undefined ? {} : { keepDumps: options.keepDumps }),
          ...(options.env === undefined ? {} : { env: options.env }),
          ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
          ...(options.commandTimeoutMs === undefined
            ? {}
            : { commandTimeoutMs: options.commandTimeoutMs }),
          ...(options.isTargetAlive === undefined ? {} : { isTargetAlive: options.isTargetAlive }),
        }),
      };
    }
    const sampler =
      style === 'bare-session'
        ? await createBareSessionSampler({
            ...common,
            ...(signal === undefined ? {} : { signal }),
          })
        : createAttachSampler({
            ...common,
            ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
            ...(options.isTargetAlive === undefined
              ? {}
              : { isTargetAlive: options.isTargetAlive }),
            ...(options.clr === true ? { clr: true } : {}),
          });
    return { sampler };
  } catch (error) {
    return isAbort(error, signal)
      ? { outcome: { status: 'interrupted', message: 'interrupted before the first sample' } }
      : {
          outcome: {
            status: 'failed',
            message: `could not start ${options.engine}: ${shortErrorMessage(error)}`,
          },
        };
  }
}

/** report.json (checked against its published schema first), report.md and report.html. */
export async function writeReports(
  files: HeapTrendFiles,
  report: HeapTrendReport,
  samples: readonly HeapTrendSample[],
): Promise<void> {
  // Our own output must match the published schema: a mismatch is a bug, found here first.
  assertValid('heapTrendReport', report);
  await writeFile(files.report, `${JSON.stringify(report, null, 2)}\n`);
  // Dumps under the report's folder are named relative to it in the pages (report.json: whole).
  await writeFile(
    files.markdown,
    renderHeapTrendMarkdown(report, samples, dirname(files.markdown)),
  );
  await writeFile(files.html, renderHeapTrendHtml(report, [...samples], dirname(files.html)));
}

function isTiersSampler(sampler: HeapSampler): sampler is ClrTiersSampler {
  return 'snapshots' in sampler;
}

function isClrSampler(sampler: HeapSampler): sampler is RetentionSampler {
  return 'retention' in sampler;
}

/**
 * Retention chains for the top suspect types, from the last sample's dump (dotnet-dump) or one more
 * attach after the last sample (cdb + SOS): the types the per-type
 * analysis flags, most suspicious first, at most `retentionTypes`. None flagged: no chains (the
 * report says so in the per-type table).
 */
async function retentionStep(
  options: HeapTrendOptions,
  sampler: RetentionSampler,
  samples: readonly HeapTrendSample[],
  warnings: string[],
): Promise<RetentionEntry[] | undefined> {
  const limit = options.retentionTypes ?? 3;
  if (limit <= 0) return undefined;
  const types = secondaryAnalysis(samples, (s) => s.clrTypes, 'clr-type', {
    ...(options.rule === undefined ? {} : { rule: options.rule }),
    limit,
  });
  const suspects = (types?.series ?? [])
    .filter((s) => s.suspect && s.id !== 'Free')
    .flatMap((s) => {
      const methodTable = sampler.methodTableOf(s.id);
      return methodTable === undefined ? [] : [{ type: s.id, methodTable }];
    });
  if (suspects.length === 0) return [];
  try {
    const { entries, note } = await sampler.retention(
      suspects,
      options.retentionBudgetMs ?? 60_000,
      options.retentionObjects,
    );
    if (note !== undefined) warnings.push(`retention: ${note}`);
    return entries;
  } catch (error) {
    warnings.push(`retention: ${shortErrorMessage(error)}`);
    return undefined;
  }
}

/** `--clr` asked for and no sample has the .NET heap: why, in words (the native series stay). */
function managedNoteOf(
  options: HeapTrendOptions,
  samples: readonly HeapTrendSample[],
): { managedNote?: string } {
  if (options.clr !== true || samples.some((s) => s.clrTypes !== undefined)) return {};
  const reason = samples.flatMap((s) => s.warnings).find((w) => w.startsWith('SOS unavailable'));
  return {
    managedNote: `No .NET series: ${reason ?? 'no sample read the managed heap'}; ${
      samples.some((s) => s.heaps.length > 0)
        ? 'the native series are reported.'
        : 'no native heap was read either, so there is no series at all.'
    }`,
  };
}
