// heap-trend: sample a live process's heaps every interval, append each sample to
// OUT/samples.ndjson as it is taken, write threshold dumps and umdh snapshots along the way, and
// end with report.json, report.md and report.html. The run never prints: progress goes to
// `onProgress`, and every way the run can end still produces the report:
// - the samples/duration budget is used up             → status `completed`;
// - the caller aborts (Ctrl-C in the CLI)              → `interrupted`, the samples so far kept;
// - the target exits                                   → `target-exited`, reported up to then;
// - sampling fails 3 times in a row                    → `failed`, with the last error.
//
// Test seam: `debuggerCommandFor` (see sampler.ts) replaces the debugger command line per use, so
// a test can point sample i at cdb-emulator scenario i.
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isHarnessError } from '../../errors.js';
import { renderHeapTrendHtml } from '../../report/heap-trend/html.js';
import { renderHeapTrendMarkdown } from '../../report/heap-trend/markdown.js';
import { buildHeapTrendReport } from '../../report/heap-trend/report.js';
import type {
  HeapTrendEngine,
  HeapTrendReport,
  HeapTrendSample,
  HeapTrendStatus,
  SuspectRule,
  ThresholdDump,
} from '../../report/heap-trend/types.js';
import type { UmdhTrend } from '../../report/heap-trend/umdh-trend.js';
import { assertValid } from '../../report/schemas.js';
import { checkUserStackTraces, takeUmdhSnapshot } from '../umdh/umdh-snapshot.js';
import { runUmdhDiff } from '../umdh/umdh-diff.js';
import { createCdbSampler } from './cdb-sampler.js';
import { TargetGoneError, type DebuggerCommandFactory, type HeapSampler } from './sampler.js';
import { crossedThresholds, writeThresholdDump } from './threshold-dumps.js';
import { createWinedbgSampler } from './winedbg-sampler.js';

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
  engine: HeapTrendEngine;
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

/** Consecutive failed samples after which the run gives up. */
const MAX_CONSECUTIVE_FAILURES = 3;

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function errorText(error: unknown): string {
  if (isHarnessError(error)) return error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}

function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return (
    signal?.aborted === true ||
    (isHarnessError(error) && error.code === 'ABORTED') ||
    (error instanceof Error && error.name === 'AbortError')
  );
}

export async function runHeapTrend(options: HeapTrendOptions): Promise<HeapTrendResult> {
  const { signal } = options;
  if (options.samples === undefined && options.durationMs === undefined && signal === undefined) {
    throw new RangeError('runHeapTrend needs samples, durationMs or a signal to stop it');
  }
  const files: HeapTrendFiles = {
    samples: join(options.outDir, 'samples.ndjson'),
    report: join(options.outDir, 'report.json'),
    markdown: join(options.outDir, 'report.md'),
    html: join(options.outDir, 'report.html'),
  };
  await mkdir(options.outDir, { recursive: true });
  // A fresh file per run: samples.ndjson only ever holds this run's samples.
  await writeFile(files.samples, '');

  const startedAt = new Date().toISOString();
  // Reset once the sampler is ready: the time axis starts at the first sample, not at the
  // debugger's start-up.
  let t0 = performance.now();
  const samples: HeapTrendSample[] = [];
  const dumps: ThresholdDump[] = [];
  const warnings: string[] = [];
  const fired = new Set<number>();
  const umdhFiles: string[] = [];
  const umdhTimes: string[] = [];
  let status: HeapTrendStatus = 'completed';
  let message: string | undefined;
  const name = options.name ?? `pid${options.pid}`;

  const umdhError = await prepareUmdh(options).catch((error: unknown) => errorText(error));
  const umdhEnabled = options.umdh !== undefined && umdhError === undefined;

  const snapshotUmdh = async (label: string): Promise<void> => {
    const file = join(options.outDir, 'umdh', `${label}.log`);
    await mkdir(join(options.outDir, 'umdh'), { recursive: true });
    try {
      const shot = await takeUmdhSnapshot(options.pid, file, {
        ...(options.umdh?.umdhPath === undefined ? {} : { umdhPath: options.umdh.umdhPath }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
        ...(signal === undefined ? {} : { signal }),
      });
      umdhFiles.push(shot.file);
      umdhTimes.push(shot.time);
      options.onProgress?.({ kind: 'umdh', file: shot.file });
    } catch (error) {
      warnings.push(`umdh snapshot ${label} failed: ${errorText(error)}`);
    }
  };

  // What every debugger this run starts shares: the samplers' and the threshold dumps'.
  const launch = {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
    ...(options.debuggerCommandFor === undefined
      ? {}
      : { debuggerCommandFor: options.debuggerCommandFor }),
  };
  const symbols = options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath };
  const samplerTimeouts = {
    ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
    ...(options.commandTimeoutMs === undefined
      ? {}
      : { commandTimeoutMs: options.commandTimeoutMs }),
  };

  let sampler: HeapSampler | undefined;
  try {
    sampler =
      options.engine === 'winedbg'
        ? await createWinedbgSampler({
            pid: options.pid,
            ...launch,
            ...samplerTimeouts,
            ...(signal === undefined ? {} : { signal }),
          })
        : createCdbSampler({
            pid: options.pid,
            ...launch,
            ...symbols,
            ...samplerTimeouts,
            ...(options.isTargetAlive === undefined
              ? {}
              : { isTargetAlive: options.isTargetAlive }),
          });
  } catch (error) {
    status = isAbort(error, signal) ? 'interrupted' : 'failed';
    message =
      status === 'interrupted'
        ? 'interrupted before the first sample'
        : `could not start ${options.engine}: ${errorText(error)}`;
  }

  t0 = performance.now();
  let lastBegan = Number.NEGATIVE_INFINITY;
  let failures = 0;
  for (let index = 0; sampler !== undefined; index++) {
    if (options.samples !== undefined && samples.length >= options.samples) break;
    // On schedule (no drift), but never closer than one interval to the previous sample: after a
    // slow threshold dump the run resumes its rhythm instead of firing a burst of catch-up samples.
    const due = Math.max(t0 + index * options.intervalMs, lastBegan + options.intervalMs);
    if (options.durationMs !== undefined && due - t0 > options.durationMs) break;
    await abortableSleep(due - performance.now(), signal);
    if (signal?.aborted === true) {
      status = 'interrupted';
      message = `interrupted after ${samples.length} sample(s); the report covers them`;
      break;
    }
    const began = performance.now();
    lastBegan = began;
    try {
      const reading = await sampler.sample(samples.length, signal);
      failures = 0;
      const total = reading.heaps.reduce((sum, heap) => sum + heap.committedKb, 0);
      const sample: HeapTrendSample = {
        time: new Date().toISOString(),
        heaps: reading.heaps,
        suspendedMs: reading.suspendedMs,
        source: sampler.source,
        index: samples.length,
        elapsedMs: Math.round(began - t0),
        totalCommittedKb: total,
        durationMs: Math.round((performance.now() - began) * 10) / 10,
        engine: sampler.engine,
        warnings: reading.warnings,
      };
      if (umdhEnabled && sample.index % (options.umdh?.every ?? 5) === 0) {
        const label = `sample-${String(sample.index).padStart(4, '0')}`;
        await snapshotUmdh(label);
        const last = umdhFiles[umdhFiles.length - 1];
        if (last !== undefined && last.endsWith(`${label}.log`)) sample.umdhSnapshot = last;
      }
      samples.push(sample);
      await appendFile(files.samples, `${JSON.stringify(sample)}\n`);
      options.onProgress?.({ kind: 'sample', sample });
      for (const step of crossedThresholds(options.dumpAtKb ?? [], fired, total)) {
        fired.add(step);
        const dump = await writeThresholdDump({
          engine: options.engine,
          pid: options.pid,
          dir: join(options.outDir, 'dumps'),
          name,
          thresholdKb: step,
          sampleIndex: sample.index,
          totalCommittedKb: total,
          ...launch,
          ...symbols,
        });
        dumps.push(dump);
        options.onProgress?.({ kind: 'dump', dump });
      }
    } catch (error) {
      if (error instanceof TargetGoneError) {
        status = 'target-exited';
        message = `${error.message}; the report covers the ${samples.length} sample(s) taken before it exited`;
        break;
      }
      if (isAbort(error, signal)) {
        status = 'interrupted';
        message = `interrupted after ${samples.length} sample(s); the report covers them`;
        break;
      }
      failures++;
      const text = errorText(error);
      warnings.push(`sample ${index} failed: ${text}`);
      options.onProgress?.({ kind: 'sample-failed', index, error: text });
      if (failures >= MAX_CONSECUTIVE_FAILURES) {
        status = 'failed';
        message = `${failures} samples in a row failed; last error: ${text}`;
        break;
      }
    }
  }
  await sampler?.close();

  let umdh: { snapshots: string[]; trend?: UmdhTrend; error?: string } | undefined;
  if (options.umdh !== undefined) {
    if (umdhEnabled && status !== 'target-exited' && signal?.aborted !== true) {
      await snapshotUmdh('final');
    }
    umdh = { snapshots: [...umdhFiles] };
    if (umdhError !== undefined) umdh.error = umdhError;
    else if (umdhFiles.length >= 2) {
      try {
        umdh.trend = await runUmdhDiff({ files: umdhFiles, times: umdhTimes });
      } catch (error) {
        umdh.error = `umdh trend failed: ${errorText(error)}`;
      }
    } else {
      umdh.error = `only ${umdhFiles.length} umdh snapshot(s): a trend needs 2 or more`;
    }
  }

  const report = buildHeapTrendReport(samples, {
    target: { pid: options.pid, ...(options.name === undefined ? {} : { name: options.name }) },
    engine: options.engine,
    source: options.engine === 'cdb' ? 'heap' : 'committed-memory',
    intervalMs: options.intervalMs,
    startedAt,
    endedAt: new Date().toISOString(),
    status,
    ...(message === undefined ? {} : { message }),
    dumps,
    ...(umdh === undefined ? {} : { umdh }),
    warnings,
    ...(options.limitKb === undefined ? {} : { limitKb: options.limitKb }),
    ...(options.rule === undefined ? {} : { rule: options.rule }),
  });
  // Our own output must match the published schema: a mismatch is a bug, found here first.
  assertValid('heapTrendReport', report);
  await writeFile(files.report, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(files.markdown, renderHeapTrendMarkdown(report));
  await writeFile(files.html, renderHeapTrendHtml(report, samples));
  options.onProgress?.({
    kind: 'end',
    status,
    ...(message === undefined ? {} : { message }),
  });
  return { report, samples, files };
}

/** `--umdh`: umdh exists (Windows) and the image runs with +ust. Resolves to undefined when ready. */
async function prepareUmdh(options: HeapTrendOptions): Promise<undefined> {
  if (options.umdh === undefined) return undefined;
  if (options.umdh.skipUstCheck === true) return undefined;
  if (options.name === undefined) {
    throw new Error('the +ust check needs the image name (use --name, or --umdh-skip-check)');
  }
  await checkUserStackTraces(options.name, {
    ...(options.umdh.gflagsPath === undefined ? {} : { gflagsPath: options.umdh.gflagsPath }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return undefined;
}
