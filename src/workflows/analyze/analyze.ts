// `analyze`: many dumps → records.ndjson (a line per dump as it finishes), summary.json and
// report.html. A pool of `jobs` workers, each dump in its own debugger process with its own
// deadline; failures are records, not exceptions; Ctrl-C (the AbortSignal) stops taking dumps,
// ends the ones in flight without writing half records, and still writes the summary of what is
// complete. Progress goes out as events; this layer never prints.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { availableParallelism } from 'node:os';
import { mkdir, stat } from 'node:fs/promises';
import { AbortedError, isHarnessError, UsageError } from '../../errors.js';
import {
  DEFAULT_TIMEOUT_MS,
  type AnalyzeEvent,
  type AnalyzeOptions,
  type AnalyzeResult,
} from './analyze-options.js';
import { cutTornLine, readRecords } from '../../report/analyze/records-file.js';
import { dumpSigner } from './dump-bucket.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import type { DumpRunContext } from './analyze-one.js';
import { pathText, type BytePath } from '../../common/byte-path.js';
import { chooseEngine, symbolPathWarning } from './engine-choice.js';
import { resumeKey } from './file-hash.js';
import {
  analyzeInput,
  dumpEvent,
  type InputOutcome,
  type InputRunContext,
} from './input-outcome.js';
import { builtinSupplier } from './symbols-setup.js';
import { engineExtensions } from './core-engine.js';
import { expandInputs, inputFolders, refuseNoInputs } from './inputs.js';
import { relativeToRoots } from '../../report/analyze/shown-paths.js';
import { startThreads, threadConfig, threadLanes } from './thread-config.js';
import { defaultJobs, threadPlan } from './thread-plan.js';
import { OutDirLock } from './out-dir.js';
import { outputFiles, writeSummaryAndReport } from './outputs.js';
import { RunRecords } from './run-records.js';
import { defaultScriptPath, loadTriageScript, type ScriptStep } from './triage-script.js';
import { OptionsCheck } from '../check-options.js';
import { DIALECT_NAMES } from '../../engine/dialects/index.js';

export { DEFAULT_TIMEOUT_MS } from './analyze-options.js';
export type { AnalyzeEvent, AnalyzeOptions, AnalyzeResult } from './analyze-options.js';

export async function analyzeDumps(options: AnalyzeOptions): Promise<AnalyzeResult> {
  const out = new OutDirLock(options.outDir);
  try {
    return await analyzeLocked(options, out);
  } finally {
    await out.release();
  }
}

/** analyzeDumps, `out` taken once the inputs are known (a run that finds none makes no folder). */
async function analyzeLocked(options: AnalyzeOptions, out: OutDirLock): Promise<AnalyzeResult> {
  new OptionsCheck('analyzeDumps', options)
    .texts('inputs')
    .text('outDir')
    .oneOf('engine', ['auto', ...DIALECT_NAMES, 'builtin'], true)
    .optionalCount('jobs')
    .optionalMs('timeoutMs')
    .optionalText('symbolPath')
    .texts('imagePaths', true)
    .optionalText('winePrefix')
    .texts('extensions', true)
    .texts('skipModules', true)
    .optionalText('recordDir')
    .optionalBoolean('resume')
    .optionalBoolean('relativePaths')
    .optionalFunction('onEvent')
    .optionalSignal();
  const started = performance.now();
  const emit = (event: AnalyzeEvent) => options.onEvent?.(event);
  const choice = chooseEngine(options.engine ?? 'auto', options.env ?? process.env, {
    ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
    hasCommandPrefix: options.debuggerCommandPrefix !== undefined,
  });
  let steps: ScriptStep[] = [];
  let scriptPath: string | undefined;
  if (choice.engine !== 'builtin') {
    scriptPath = options.scriptPath ?? defaultScriptPath(choice.engine);
    steps = loadTriageScript(scriptPath);
  }
  const warning = symbolPathWarning(choice, options.symbolPath);
  emit({
    type: 'engine',
    choice,
    ...(scriptPath === undefined ? {} : { script: scriptPath }),
    ...(warning === undefined ? {} : { warning }),
  });

  const {
    files: inputs,
    unmatched,
    skipped: skippedInputs,
    missing,
    unreadable,
  } = await expandInputs(options.inputs, options.cwd, [
    ...engineExtensions(choice.engine),
    ...(options.extensions ?? []),
  ]);
  if (inputs.length === 0) refuseNoInputs(options.inputs, missing, unreadable);
  for (const input of unmatched) emit({ type: 'unmatched', input });
  if (inputs.length === 0) {
    const passed = describeSkipped(skippedInputs);
    throw new UsageError(
      `no dump files found in ${options.inputs.map((p) => `"${p}"`).join(', ') || '(no paths given)'}${passed === '' ? '' : ` (passed over: ${passed})`}`,
    );
  }

  const files = outputFiles(options.outDir);
  await out.take();
  const existing = await stat(files.records).catch(() => undefined);
  if (existing !== undefined && existing.size > 0 && options.resume !== true) {
    throw new UsageError(
      `${files.records} already has records: add --resume to continue that run, or pick another --out`,
    );
  }
  const done = new Set<string>();
  if (options.resume === true) {
    await cutTornLine(files.records);
    for await (const record of readRecords(files.records)) done.add(resumeKey(record));
  }
  // Our own controller: the user's signal, or a fatal error in one worker, stops every worker.
  const stop = new AbortController();
  // One supplier for the batch: images for every engine's walk, symbol files for the builtin
  // engine's names (a debugger names frames with its own symbols).
  const supplier = await builtinSupplier({
    ...options,
    symbolFiles: choice.engine === 'builtin',
    signal: stop.signal,
    onSymbolServerDown: (server, reason) => emit({ type: 'symbol-server-down', server, reason }),
  });
  // The same signer as every other bucket of a dump (watch's too: dump-bucket.ts).
  const signer = dumpSigner(options);
  const jobs = Math.max(
    1,
    options.jobs ??
      defaultJobs({
        engine: choice.engine,
        cores: availableParallelism(),
        ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
        env: options.env ?? process.env,
      }),
  );

  const onUserAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onUserAbort, { once: true });
  if (options.signal?.aborted === true) stop.abort(options.signal.reason);

  const ctx: DumpRunContext = {
    engine: choice.engine,
    steps,
    outDir: options.outDir,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signer,
    signal: stop.signal,
    onRetry: (file, error) => emit({ type: 'retry', file, error }),
    // Named one by one: options.cwd is where inputs are found, not the debugger's directory.
    ...debuggerLaunchOptions({
      debuggerPath: options.debuggerPath ?? choice.debuggerPath,
      debuggerCommandPrefix: options.debuggerCommandPrefix,
      symbolPath: options.symbolPath,
      env: options.env,
    }),
    ...(options.recordDir === undefined ? {} : { recordDir: options.recordDir }),
    supplier,
    ...(options.walkStacks === undefined ? {} : { walkStacks: options.walkStacks }),
  };
  if (options.recordDir !== undefined) await mkdir(options.recordDir, { recursive: true });

  const plan = threadPlan({
    engine: choice.engine,
    ...(options.threads === undefined ? {} : { requested: options.threads }),
    ...(options.jobs === undefined ? {} : { jobs: options.jobs }),
    inputs: inputs.length,
    cores: availableParallelism(),
    ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
    env: options.env ?? process.env,
    customFetch: options.symbolFetch !== undefined,
  });
  if (choice.engine === 'builtin') emit({ type: 'threads', ...plan });
  emit({ type: 'start', total: inputs.length, outDir: options.outDir });
  // A fresh run folds each record into the summary and report as it is written (run-records.ts).
  const showPath =
    options.relativePaths === true
      ? relativeToRoots(await inputFolders(options.inputs, options.cwd))
      : undefined;
  const appender = await RunRecords.open(
    files.records,
    signer.algorithm,
    options.resume !== true,
    showPath,
  );
  let next = 0;
  let finished = 0;
  let analyzed = 0;
  const skipped = { resumed: 0, otherShard: 0 };
  let fatal: unknown;

  const inputCtx: InputRunContext = {
    dump: ctx,
    validateRecords: options.validateRecords !== false,
    ...(options.maxDumpBytes === undefined ? {} : { maxDumpBytes: options.maxDumpBytes }),
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(options.resume === true ? { done } : {}),
  };
  const here = (path: BytePath) => analyzeInput(path, inputCtx);
  const batch = await startThreads(plan.threads, threadConfig(options, ctx, inputCtx, done), {
    onServerDown: (server, reason) => emit({ type: 'symbol-server-down', server, reason }),
    ...(options.threadResourceLimits === undefined ? {} : { limits: options.threadResourceLimits }),
  });
  const onStop = () => batch?.abort();
  stop.signal.addEventListener('abort', onStop, { once: true });
  let givenUpSaid = false;

  // A lane takes the next input until none is left: on this thread (`lane` undefined) or on
  // analyze thread `lane`, whose outcome comes back as a message (analyze-threads.ts).
  const runLane = async (lane: number | undefined) => {
    while (!stop.signal.aborted) {
      // One turn of the event loop per input: a dump held in memory is processed without a
      // single macrotask (promises only), so without it Ctrl-C and SIGTERM were handled only
      // after the whole batch (test/cli/commands/analyze-stop.test.ts).
      await nextTurn();
      if (stop.signal.aborted) return;
      const index = next++;
      const path = inputs[index];
      if (path === undefined) return;
      // Events and records show the name as text; fs calls get `path` (bytes for a name that
      // is not valid UTF-8).
      const file = pathText(path);
      let outcome: InputOutcome;
      try {
        outcome =
          batch === undefined || lane === undefined
            ? await here(path)
            : await batch.run(path, lane, () => here(path));
      } catch (error) {
        if (stop.signal.aborted || error instanceof AbortedError) return;
        if (isHarnessError(error) && error.code === 'ABORTED') return;
        fatal ??= error;
        stop.abort(error);
        return;
      }
      if (batch?.givenUp !== undefined && !givenUpSaid) {
        givenUpSaid = true;
        emit({ type: 'threads', threads: 0, reason: batch.givenUp });
      }
      if (!('record' in outcome)) {
        if (outcome.status === 'skipped-shard') skipped.otherShard++;
        else skipped.resumed++;
        emit({
          type: 'dump',
          file,
          status: outcome.status,
          done: ++finished,
          total: inputs.length,
        });
        continue;
      }
      // An abort that landed while this record was being finished must not drop it: it is
      // complete, so it is written.
      // A thread's record is parsed from its line here (the summary and report fold it in).
      await appender.append(outcome.record, outcome.json);
      if (outcome.analyzed) analyzed++;
      if (options.onEvent !== undefined) {
        emit(
          dumpEvent(
            { file, status: outcome.status, done: ++finished, total: inputs.length },
            outcome,
          ),
        );
      } else finished++;
    }
  };
  const lanes = threadLanes(plan.threads, jobs);
  try {
    await Promise.all(lanes.slice(0, Math.max(1, inputs.length)).map(runLane));
  } finally {
    stop.signal.removeEventListener('abort', onStop);
    options.signal?.removeEventListener('abort', onUserAbort);
    await batch?.end();
    await appender.close();
    await supplier.close();
  }
  if (fatal !== undefined) {
    throw fatal instanceof Error ? fatal : new Error(`analyze failed: ${JSON.stringify(fatal)}`);
  }
  const interrupted = options.signal?.aborted === true;
  const summary = await writeSummaryAndReport(options.outDir, signer.algorithm, {
    interrupted,
    options: {
      command: 'analyze',
      inputs: [...options.inputs],
      engineRequested: options.engine ?? 'auto',
      engine: choice.engine,
      ...(scriptPath === undefined ? {} : { script: scriptPath }),
      jobs,
      ...(choice.engine === 'builtin' ? {} : { timeoutMs: Math.round(ctx.timeoutMs) }),
      ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
      resume: options.resume === true,
      ...(options.shard === undefined
        ? {}
        : { shard: `${options.shard.index}/${options.shard.count}` }),
      ...(options.skipModules === undefined ? {} : { skipModules: [...options.skipModules] }),
      ...(options.signatureLists === undefined ? {} : { signatureLists: options.signatureLists }),
    },
    onBadLine: (line, reason) => emit({ type: 'bad-record-line', line, reason }),
    ...(Object.keys(skippedInputs).length === 0 ? {} : { skippedInputs }),
    // Without --resume the records file started empty (checked above) and inputs are unique.
    onePerInput: options.resume !== true,
    ...(appender.collected === undefined ? {} : { collected: appender.collected }),
    ...(showPath === undefined ? {} : { showPath }),
  });
  emit({ type: 'finish', summary });
  return {
    summary,
    files,
    engine: choice,
    analyzed,
    skipped,
    interrupted,
    durationMs: Math.round(performance.now() - started),
    ...(showPath === undefined ? {} : { showPath }),
  };
}

/** `FIFO 2, broken link 1`: what a folder scan passed over, for messages. */
export function describeSkipped(skipped: Record<string, number>): string {
  return Object.entries(skipped)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
}
