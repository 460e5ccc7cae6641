// The run of `cdb-harness analyze` once its command line is parsed (analyze.ts): the output-folder
// tools (--rebucket, --merge), or a batch (local or through --queue) with progress on stderr,
// Ctrl-C and SIGTERM as a stop that keeps what is recorded, and the summary at the end: text on
// stdout, or the summary JSON there with --json (the text then on stderr), or the text on stdout
// and the JSON in a file with --cyborg FILE.
import { checkOutWritable, defaultOutDir } from '../default-out.js';
import { DIALECT_NAMES } from '../../engine/dialects/index.js';
import { UsageError } from '../../errors.js';
import type { AnalyzeSummary } from '../../report/analyze/analyze-record.js';
import { summaryText } from '../../report/analyze/progress-text.js';
import { shownSummary } from '../../report/analyze/shown-paths.js';
import { escapeStrings } from '../../report/terminal-text.js';
import { ProgressPrinter, resumeHint } from './analyze-progress.js';
import {
  analyzeDumps,
  type AnalyzeEvent,
  type AnalyzeOptions,
} from '../../workflows/analyze/analyze.js';
import type { EngineRequest } from '../../workflows/analyze/engine-choice.js';
import { parseShard } from '../../workflows/analyze/inputs.js';
import { mergeOutputs, outputFiles, rebucketOutputs } from '../../workflows/analyze/outputs.js';
import { parseCount, parseDuration, parseSizeKb } from '../../units.js';
import { signerOf, signingOf } from '../signature-options.js';
import { ExitCode } from '../exit-codes.js';
import { symbolLimitsOf, symbolPathOf, winePrefixOf } from '../options.js';
import type { JsonSink } from '../cyborg.js';
import { requireQueuePackages } from '../../queue/queue-packages.js';

export interface AnalyzeCliOptions {
  /** One engine or auto; with --queue also `any` or a comma list (checked by engineSet). */
  engine: string;
  script?: string;
  jobs?: string;
  threads?: string;
  timeout?: string;
  out?: string;
  json?: boolean;
  /** --cyborg FILE: the summary JSON into FILE, the text on stdout. */
  cyborg?: string;
  relativePaths?: boolean;
  symbols?: string;
  symbolPath?: string;
  symbolTimeout?: string;
  symbolRedirects?: string;
  symbolMaxSize?: string;
  imagePath?: string[];
  winePrefix?: string;
  debugger?: string;
  z?: string[];
  ext?: string[];
  resume?: boolean;
  shard?: string;
  merge?: string[];
  rebucket?: string;
  skipModules?: string;
  signatureLists?: string;
  record?: string;
  progress: boolean;
  queue?: string;
  queueName?: string;
  watchFolder?: boolean;
  reanalyze?: boolean;
  retryFailed?: boolean;
  maxDumpSize?: string;
}

export const ENGINE_WORDS: readonly string[] = ['auto', ...DIALECT_NAMES, 'builtin'];

export function isEngineRequest(value: string): value is EngineRequest {
  return ENGINE_WORDS.includes(value);
}

export async function runAnalyze(
  paths: readonly string[],
  options: AnalyzeCliOptions,
  /** Where the summary JSON goes: stdout (--json), a file (--cyborg), or nowhere. */
  sink: JsonSink,
): Promise<number> {
  const signing = signingOf(options);
  const symbolPath = symbolPathOf(options);
  const signer = signerOf(signing);
  // The roots that paths are shown from are the folders a local run was given: a queued run's
  // collector, --merge and --rebucket write their report.html without them, so the option would
  // do nothing there. Said before anything runs, never ignored.
  const elsewhere =
    options.queue !== undefined
      ? '--queue'
      : options.merge !== undefined
        ? '--merge'
        : options.rebucket !== undefined
          ? '--rebucket'
          : undefined;
  if (options.relativePaths === true && elsewhere !== undefined) {
    throw new UsageError(
      `--relative-paths goes with a local analyze of dump folders, not with ${elsewhere} (its report shows recorded paths as they are)`,
    );
  }
  if (options.rebucket !== undefined) {
    if (paths.length > 0) throw new UsageError('--rebucket takes no dump paths');
    const result = await rebucketOutputs(options.rebucket, signer);
    process.stderr.write(
      `rebucketed ${result.records} records with ${signer.algorithm}: ${result.changed} changed bucket\n`,
    );
    return finish(result.summary, outputFiles(options.rebucket), sink);
  }
  if (options.merge !== undefined) {
    if (paths.length > 0) throw new UsageError('--merge takes output folders, not dump paths');
    if (options.out === undefined)
      throw new UsageError('--merge needs --out DIR for the merged result');
    const result = await mergeOutputs(options.merge, options.out, signer);
    process.stderr.write(
      `merged ${result.merged} records from ${options.merge.length} folders (${result.duplicates} duplicates dropped)\n`,
    );
    return finish(result.summary, outputFiles(options.out), sink);
  }
  if (paths.length === 0) throw new UsageError('give at least one dump file, folder or glob');

  const outDir = options.out ?? defaultOutDir('analyze');
  checkOutWritable(outDir);
  const controller = new AbortController();
  let interrupts = 0;
  // SIGTERM (systemd, Kubernetes, `kill`) is a stop like Ctrl-C: records in flight, then summary.
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write(
        `\ninterrupted: finishing records in flight, writing the summary… (again: stop now)\n`,
      );
      controller.abort();
    } else {
      process.exit(ExitCode.Interrupted);
    }
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const progress = new ProgressPrinter(
    options.progress && !(!sink.textOnStdout && !process.stderr.isTTY),
  );
  try {
    if (options.queue !== undefined) requireQueuePackages();
    const queued = options.queue === undefined ? undefined : await import('./analyze-queue.js');
    if (
      queued === undefined &&
      (options.queueName !== undefined ||
        options.watchFolder === true ||
        options.reanalyze === true ||
        options.retryFailed === true)
    ) {
      throw new UsageError(
        '--queue-name, --watch-folder, --reanalyze and --retry-failed go with --queue redis://HOST:PORT',
      );
    }
    if (queued === undefined && !isEngineRequest(options.engine)) {
      throw new UsageError(
        `--engine ${options.engine} goes with --queue (workers of several engines); a local run uses one engine (auto picks it)`,
      );
    }
    const local: AnalyzeOptions = {
      inputs: paths,
      outDir,
      ...(isEngineRequest(options.engine) ? { engine: options.engine } : {}),
      ...(options.script === undefined ? {} : { scriptPath: options.script }),
      ...(options.jobs === undefined ? {} : { jobs: parseCount(options.jobs, '--jobs', 1) }),
      ...(options.threads === undefined
        ? {}
        : { threads: parseCount(options.threads, '--threads') }),
      ...(options.timeout === undefined
        ? {}
        : { timeoutMs: parseDuration(options.timeout, '--timeout') }),
      ...(symbolPath === undefined ? {} : { symbolPath }),
      ...symbolLimitsOf(options),
      ...(options.debugger === undefined ? {} : { debuggerPath: options.debugger }),
      ...(options.ext === undefined ? {} : { extensions: options.ext }),
      ...(options.imagePath === undefined ? {} : { imagePaths: options.imagePath }),
      ...winePrefixOf(options),
      ...(options.resume === true ? { resume: true } : {}),
      ...(options.shard === undefined ? {} : { shard: parseShard(options.shard) }),
      ...(options.maxDumpSize === undefined
        ? {}
        : { maxDumpBytes: parseSizeKb(options.maxDumpSize, '--max-dump-size') * 1024 }),
      ...signing,
      ...(options.record === undefined ? {} : { recordDir: options.record }),
      ...(options.relativePaths === true ? { relativePaths: true } : {}),
      signal: controller.signal,
      onEvent: (event: AnalyzeEvent) => progress.on(event),
    };
    const result =
      queued === undefined ? await analyzeDumps(local) : await queued.analyzeQueued(local, options);
    progress.end();
    if (result.skipped.resumed > 0 || result.skipped.otherShard > 0) {
      process.stderr.write(
        `skipped: ${result.skipped.resumed} already recorded (--resume), ${result.skipped.otherShard} in other shards\n`,
      );
    }
    const shown =
      result.showPath === undefined
        ? result.summary
        : shownSummary(result.summary, result.showPath);
    const code = await finish(result.summary, result.files, sink, result.durationMs, shown);
    if (result.interrupted) {
      // What was recorded stays; the same command with --resume skips it and does the rest.
      process.stderr.write(`interrupted: ${resumeHint(paths, outDir)}\n`);
      return ExitCode.Interrupted;
    }
    return code;
  } finally {
    progress.end();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

async function finish(
  summary: AnalyzeSummary,
  files: { report: string; records: string; summary: string },
  sink: JsonSink,
  durationMs?: number,
  /** The summary as the text shows it (`--relative-paths`); the JSON is always the data. */
  shown: AnalyzeSummary = summary,
): Promise<number> {
  // File names and signatures come from dumps: escaped for the terminal (summary.json keeps them).
  const text = summaryText(
    escapeStrings(shown),
    files,
    durationMs === undefined ? {} : { durationMs },
  );
  await sink.write(`${JSON.stringify(summary, null, 2)}\n`);
  (sink.textOnStdout ? process.stdout : process.stderr).write(`${text}\n`);
  // A truncated dump was read, in part (a record marked truncated, bucketed when its exception
  // or a frame could be read): that is partial (4), not "nothing could be read" (1).
  const readSome = summary.ok + (summary.truncated ?? 0);
  if (summary.dumps > 0 && readSome === 0) return ExitCode.Failure;
  return summary.failed > 0 || (summary.truncated ?? 0) > 0 ? ExitCode.Partial : ExitCode.Ok;
}
