// The heart of a heap-trend run: take a sample on schedule, record it (samples.ndjson, progress,
// a umdh snapshot when one is due), write a threshold dump when the total crosses a --dump-at
// step, and decide when the run ends: budget used up, the caller aborted, the target exited, or
// too many samples failed in a row.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isHarnessError, shortErrorMessage } from '../../errors.js';
import { formatMs } from '../../report/heap-trend/format.js';
import type {
  HeapTrendSample,
  HeapTrendStatus,
  ThresholdDump,
} from '../../report/heap-trend/types.js';
import type { HeapTrendOptions } from './run-heap-trend.js';
import { TargetGoneError, type HeapSampler, type SampleReading } from './sampler.js';
import { crossedThresholds, writeThresholdDump } from './threshold-dumps.js';
import type { UmdhSteps } from './umdh-steps.js';

/** Consecutive failed samples after which the run gives up. */
const MAX_CONSECUTIVE_FAILURES = 3;

export interface LoopOutcome {
  status: HeapTrendStatus;
  message?: string;
}

export interface LoopContext {
  options: HeapTrendOptions;
  sampler: HeapSampler;
  umdh: UmdhSteps;
  samplesFile: string;
  samples: HeapTrendSample[];
  dumps: ThresholdDump[];
  warnings: string[];
}

export function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return (
    signal?.aborted === true ||
    (isHarnessError(error) && error.code === 'ABORTED') ||
    (error instanceof Error && error.name === 'AbortError')
  );
}

function interrupted(count: number): LoopOutcome {
  return {
    status: 'interrupted',
    message: `interrupted after ${count} sample(s); the report covers them`,
  };
}

/** Samples until the run ends; returns how it ended. */
export async function runSamplingLoop(context: LoopContext): Promise<LoopOutcome> {
  const { options, samples } = context;
  const { signal } = options;
  const fired = new Set<number>();
  // Set-up before the clock: a first interval that waited for it was 13 s of 1 s asked
  // (bench/heap-trend-tiers.ts, 1 GB heap: the baseline gcdump ran inside sample 0).
  if (context.sampler.prepare !== undefined) {
    try {
      await context.sampler.prepare(signal);
    } catch (error) {
      if (error instanceof TargetGoneError)
        return { status: 'target-exited', message: error.message };
      if (isAbort(error, signal)) return interrupted(0);
      context.warnings.push(`before the first sample: ${shortErrorMessage(error)}`);
    }
  }
  const t0 = performance.now();
  let lastBegan = Number.NEGATIVE_INFINITY;
  let failures = 0;
  for (let index = 0; ; index++) {
    if (options.samples !== undefined && samples.length >= options.samples) break;
    // On schedule (no drift), but never closer than one interval to the previous sample: after a
    // slow threshold dump the run resumes its rhythm instead of firing a burst of catch-up samples.
    const due = Math.max(t0 + index * options.intervalMs, lastBegan + options.intervalMs);
    if (options.durationMs !== undefined && due - t0 > options.durationMs) break;
    const wait = due - performance.now();
    if (wait > 0) await delay(wait, undefined, { signal }).catch(() => undefined);
    if (signal?.aborted === true) return interrupted(samples.length);
    const began = performance.now();
    lastBegan = began;
    try {
      const sample = await takeSample(context, began - t0, t0);
      failures = 0;
      await recordSample(context, sample);
      await dumpAtThresholds(context, sample, fired);
    } catch (error) {
      if (error instanceof TargetGoneError) {
        return {
          status: 'target-exited',
          message: `${error.message}; the report covers the ${samples.length} sample(s) taken before it exited`,
        };
      }
      if (isAbort(error, signal)) return interrupted(samples.length);
      // A missing debugger or debugger piece is no passing failure: the run ends (exit 3).
      if (isHarnessError(error) && error.code === 'DEBUGGER_NOT_FOUND') throw error;
      failures++;
      const text = shortErrorMessage(error);
      context.warnings.push(`sample ${index} failed: ${text}`);
      options.onProgress?.({ kind: 'sample-failed', index, error: text });
      if (failures >= MAX_CONSECUTIVE_FAILURES) {
        return {
          status: 'failed',
          message: `${failures} samples in a row failed; last error: ${text}`,
        };
      }
    }
  }
  return { status: 'completed' };
}

async function takeSample(
  context: LoopContext,
  elapsedMs: number,
  t0: number,
): Promise<HeapTrendSample> {
  const { sampler, samples, options } = context;
  // The sample's time is when it was taken (the dump or the attach starts now), not when its
  // analysis ended: a dotnet-dump sample is read 5–15 s after its dump was written.
  const takenAt = new Date().toISOString();
  const began = performance.now();
  const reading = await sampler.sample(samples.length, options.signal);
  const durationMs = Math.round((performance.now() - began) * 10) / 10;
  const warnings = [...reading.warnings];
  const overran = durationMs > options.intervalMs;
  if (overran) {
    warnings.push(
      `sample ${samples.length} took ${formatMs(durationMs)}, longer than the ${formatMs(options.intervalMs)} interval asked for: the next sample came late`,
    );
  }
  return {
    time: takenAt,
    heaps: reading.heaps,
    suspendedMs: reading.suspendedMs,
    ...(reading.suspendedHow === undefined ? {} : { suspendedHow: reading.suspendedHow }),
    ...(reading.suspendedUpperBoundMs === undefined
      ? {}
      : { suspendedUpperBoundMs: reading.suspendedUpperBoundMs }),
    ...(overran ? { overran } : {}),
    ...(reading.unused === undefined ? {} : { unused: reading.unused }),
    source: sampler.source,
    index: samples.length,
    elapsedMs: Math.round(elapsedMs),
    totalCommittedKb: reading.heaps.reduce((sum, heap) => sum + heap.committedKb, 0),
    durationMs,
    engine: sampler.engine,
    warnings,
    ...(reading.clrTypes === undefined ? {} : { clrTypes: reading.clrTypes }),
    ...(reading.categories === undefined ? {} : { categories: reading.categories }),
    ...(reading.memoryTotals === undefined ? {} : { memoryTotals: reading.memoryTotals }),
    ...(reading.clrGenerations === undefined ? {} : { clrGenerations: reading.clrGenerations }),
    ...(reading.dumpFile === undefined ? {} : { dumpFile: reading.dumpFile }),
    ...tierFields(reading, began, t0),
  };
}

/** The live .NET tiers' fields of a reading (issue 32), when it has them. */
function tierFields(reading: SampleReading, began: number, t0: number): Partial<HeapTrendSample> {
  const offset = reading.clrTypesOffsetMs;
  return {
    ...(offset === undefined || offset === 0
      ? {}
      : {
          clrTypesElapsedMs: Math.max(0, Math.round(began + offset - t0)),
          clrTypesTime: new Date(Date.now() - (performance.now() - (began + offset))).toISOString(),
        }),
    ...(reading.tiers === undefined ? {} : { tiers: reading.tiers }),
    ...(reading.counters === undefined ? {} : { counters: reading.counters }),
    ...(reading.gcdumpFile === undefined ? {} : { gcdumpFile: reading.gcdumpFile }),
    ...(reading.gcdumpBytes === undefined ? {} : { gcdumpBytes: reading.gcdumpBytes }),
  };
}

/** A umdh snapshot when one is due, then samples.ndjson and the progress event. */
async function recordSample(context: LoopContext, sample: HeapTrendSample): Promise<void> {
  if (context.umdh.due(sample.index)) {
    const file = await context.umdh.snapshot(`sample-${String(sample.index).padStart(4, '0')}`);
    if (file !== undefined) sample.umdhSnapshot = file;
  }
  context.samples.push(sample);
  await appendFile(context.samplesFile, `${JSON.stringify(sample)}\n`);
  context.options.onProgress?.({ kind: 'sample', sample });
}

async function dumpAtThresholds(
  context: LoopContext,
  sample: HeapTrendSample,
  fired: Set<number>,
): Promise<void> {
  const { options } = context;
  const total = sample.totalCommittedKb;
  for (const step of crossedThresholds(options.dumpAtKb ?? [], fired, total)) {
    fired.add(step);
    const dump = await writeThresholdDump({
      engine: options.engine,
      pid: options.pid,
      dir: join(options.outDir, 'dumps'),
      name: options.name ?? `pid${options.pid}`,
      thresholdKb: step,
      sampleIndex: sample.index,
      totalCommittedKb: total,
      ...launchSettings(options),
      ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
    });
    context.dumps.push(dump);
    options.onProgress?.({ kind: 'dump', dump });
  }
}

/** What every debugger this run starts shares: the samplers' and the threshold dumps'. */
export function launchSettings(options: HeapTrendOptions): {
  env?: NodeJS.ProcessEnv;
  debuggerPath?: string;
  debuggerCommandFor?: NonNullable<HeapTrendOptions['debuggerCommandFor']>;
} {
  return {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
    ...(options.debuggerCommandFor === undefined
      ? {}
      : { debuggerCommandFor: options.debuggerCommandFor }),
  };
}
