// The managed sampler (Linux, dotnet-dump): every sample writes a heap dump of the live process
// (`dotnet-dump collect --type Heap`: createdump stops the process while it writes; the sample's
// suspension is measured from the target's thread states, thread-stops.ts), then one
// `dotnet-dump analyze` batch reads `eeheap -gc` (per-generation series) and `dumpheap -stat`
// (per-type series) from it. A dump is deleted once the next sample has been read, unless
// `--keep-dumps`; the last one stays until the retention step has run on it (close() removes it).
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { getDialect, type DialectName, type DumpToolOptions } from '../../engine/dialects/index.js';
import { isHarnessError, UsageError } from '../../errors.js';
import { processExists } from './attach-sampler.js';
import { CLR_SAMPLE_COMMANDS, readClrOutputs, type ClrReading } from './clr-readings.js';
import { NO_OBJECTS, traceRetention } from './retention.js';
import { watchThreadStops, type ThreadStopMeasure } from './thread-stops.js';
import { TargetGoneError, type RetentionSampler, type SampleReading } from './sampler.js';

export interface ClrDumpSamplerOptions {
  engine: DialectName;
  pid: number;
  /** Where the sample dumps go (OUT/dumps). */
  dir: string;
  keepDumps?: boolean;
  env?: NodeJS.ProcessEnv;
  debuggerPath?: string;
  /** Per collect and per analyze batch (default 120 s). */
  commandTimeoutMs?: number;
  isTargetAlive?: (pid: number) => Promise<boolean>;
}

/** Its retention chains are read from the last sample's dump. */
export type ClrDumpSampler = RetentionSampler;

export function createClrDumpSampler(options: ClrDumpSamplerOptions): ClrDumpSampler {
  const dialect = getDialect(options.engine);
  const sampling = dialect.heapSampling;
  if (sampling?.style !== 'dump-per-sample') {
    throw new UsageError(`${options.engine} does not sample .NET heaps from dumps`);
  }
  const alive = options.isTargetAlive ?? processExists;
  const timeoutMs = options.commandTimeoutMs ?? 120_000;
  const tool = (signal?: AbortSignal, ms = timeoutMs): DumpToolOptions => ({
    timeoutMs: ms,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
    ...(signal === undefined ? {} : { signal }),
  });
  let lastDump: string | undefined;
  // The first sample's dump stays until the end: retention picks objects new since then.
  let firstDump: string | undefined;
  // Retention did not finish: the last dump is kept for the user to go on by hand.
  let keepLast = false;
  let methodTables = new Map<string, string>();

  const dropLast = async (): Promise<void> => {
    if (lastDump !== undefined && lastDump !== firstDump && options.keepDumps !== true) {
      await rm(lastDump, { force: true });
    }
    lastDump = undefined;
  };

  /** One dump written and read: its readings, and the stop it cost (measured, or the collect's run). */
  const collectAndRead = async (
    path: string,
    signal?: AbortSignal,
  ): Promise<{ reading: ClrReading; suspendedMs: number; upperMs: number; measured: boolean }> => {
    let durationMs: number;
    // The real stop, from the target's thread states while the dump is written (thread-stops.ts);
    // where they cannot be read, the collect's own run is all there is: an upper bound.
    const stops = watchThreadStops(options.pid);
    let stop: ThreadStopMeasure | undefined;
    try {
      ({ durationMs } = await sampling.collect(options.pid, path, tool(signal)));
      stop = stops?.finish();
    } catch (error) {
      stops?.finish();
      await rm(path, { force: true });
      if (isHarnessError(error) && error.code === 'TARGET' && !(await alive(options.pid))) {
        throw new TargetGoneError(`the target (pid ${options.pid}) is gone: ${error.shortMessage}`);
      }
      throw error;
    }
    let batch;
    try {
      batch = await sampling.analyze(path, CLR_SAMPLE_COMMANDS, tool(signal));
    } catch (error) {
      if (options.keepDumps !== true) await rm(path, { force: true });
      throw error;
    }
    const reading = readClrOutputs(batch.outputs[0], batch.outputs[1]);
    if (batch.stopped !== undefined) {
      reading.warnings.push(`${batch.stopped.command} stopped: ${batch.stopped.text}`);
    }
    return stop === undefined
      ? { reading, suspendedMs: durationMs, upperMs: durationMs, measured: false }
      : { reading, suspendedMs: stop.stoppedMs, upperMs: durationMs, measured: true };
  };

  return {
    engine: options.engine,
    source: sampling.source,
    async sample(index: number, signal?: AbortSignal): Promise<SampleReading> {
      await mkdir(options.dir, { recursive: true });
      const path = join(options.dir, sampling.dumpName(index));
      let taken = await collectAndRead(path, signal);
      const warnings = [...taken.reading.warnings];
      let { suspendedMs, upperMs } = taken;
      // A dump taken mid-GC cannot be walked (dotnet/diagnostics#3214): take it once more; if the
      // second is refused too, the sample is kept but marked unused, with SOS's words.
      const first = taken.reading.refusal;
      if (first !== undefined) {
        warnings.push(`sample ${index}: SOS: ${first} (a dump taken mid-GC); taken again`);
        taken = await collectAndRead(path, signal);
        for (const w of taken.reading.warnings) warnings.push(w);
        suspendedMs += taken.suspendedMs;
        upperMs += taken.upperMs;
      }
      const { reading } = taken;
      await dropLast();
      lastDump = path;
      if (reading.refusal === undefined) {
        methodTables = reading.methodTables;
        firstDump ??= path;
      }
      return {
        heaps: reading.generations,
        clrTypes: reading.types,
        suspendedMs,
        suspendedHow: taken.measured ? 'measured' : 'upper-bound',
        ...(taken.measured ? { suspendedUpperBoundMs: upperMs } : {}),
        warnings,
        ...(reading.refusal === undefined
          ? {}
          : { unused: `SOS: ${reading.refusal} (taken twice, mid-GC both times)` }),
        ...(options.keepDumps === true ? { dumpFile: path } : {}),
      };
    },
    methodTableOf: (type) => methodTables.get(type),
    async retention(suspects, budgetMs, objectsPerType) {
      const dump = lastDump;
      if (dump === undefined) return { entries: [] };
      const first = firstDump;
      const entries = await traceRetention(
        (commands, ms) => sampling.analyze(dump, commands, tool(undefined, ms)),
        suspects,
        {
          budgetMs,
          ...(objectsPerType === undefined ? {} : { objectsPerType }),
          ...(first === undefined || first === dump
            ? {}
            : {
                baseline: (commands, ms) => sampling.analyze(first, commands, tool(undefined, ms)),
              }),
        },
      );
      if (!entries.some((e) => e.skipped !== undefined && e.skipped !== NO_OBJECTS)) {
        return { entries };
      }
      keepLast = true;
      return {
        entries,
        note: `it did not finish; the dump it read is kept: ${dump} (go on by hand: dotnet-dump analyze ${dump}, then gcroot ADDRESS)`,
        keptDump: dump,
      };
    },
    async close(): Promise<void> {
      const dumps = new Set([firstDump, lastDump]);
      firstDump = undefined;
      if (keepLast) dumps.delete(lastDump);
      lastDump = undefined;
      if (options.keepDumps === true) return;
      for (const dump of dumps) if (dump !== undefined) await rm(dump, { force: true });
    },
  };
}
