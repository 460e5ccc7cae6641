// The default managed sampler of a live .NET process on Linux (issue 32): three tiers, each at its
// own cost.
// - Sizes, every sample: the runtime's own counters (System.Runtime: GC heap, generations, LOH,
//   POH, committed, working set, allocation rate, collections, GC pause), read over its
//   diagnostics channel. The target is never stopped for them.
// - Types, every `typesEvery` samples (and the first and the last): a `dotnet-gcdump collect`
//   snapshot (one induced GC), read here into counts and bytes per type (gcdump-file.ts). The first
//   and last are taken in the sample; the others in the background, so the sizes keep their
//   interval, and go into the first sample after they finish, at their own time.
// - Retention, once at the end: what holds the flagged types, from the last snapshot's object graph
//   (retention-paths.ts), with the first snapshot's counts beside it.
// The first and last gcdumps stay in OUT/gcdumps (open them in PerfView or Visual Studio); the
// others are deleted once read unless --keep-dumps. Without the counters (no channel client, or it
// failed), every sample is a types sample and its sizes are the snapshot's heap total.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { collectGcDump, loadGcDump } from '../../engine/dialects/dotnet-gcdump/collect.js';
import type { GcDump } from '../../engine/dialects/dotnet-gcdump/gcdump-file.js';
import { typeHistogram } from '../../engine/dialects/dotnet-gcdump/type-histogram.js';
import { isHarnessError, shortErrorMessage } from '../../errors.js';
import type {
  ClrCounters,
  HeapTrendSampleHeap,
  HeapTrendTier,
} from '../../report/heap-trend/types.js';
import { processExists } from './attach-sampler.js';
import type { HeapSampler, SampleReading } from './sampler.js';
import { TargetGoneError } from './sampler.js';

/** The runtime's counters as a feed: the latest reading, kept current in the background. */
export interface ClrCountersFeed {
  /** The newest reading, waiting (bounded) for the first one. */
  latest(signal?: AbortSignal): Promise<ClrCounters | undefined>;
  /** The first reading published at or after `wallMs` (Unix ms), waiting at most `timeoutMs`. */
  since?(wallMs: number, timeoutMs: number, signal?: AbortSignal): Promise<ClrCounters | undefined>;
  close(): Promise<void>;
}

export interface ClrTiersSamplerOptions {
  pid: number;
  /** Where the gcdumps go (OUT/gcdumps). */
  dir: string;
  /** A types sample every N samples (the first is always one). */
  typesEvery: number;
  /** The run's sample budget, when known: the last sample is a types sample too. */
  samples?: number;
  counters?: ClrCountersFeed;
  keepDumps?: boolean;
  env?: NodeJS.ProcessEnv;
  /** --debugger: where dotnet-dump is (dotnet-gcdump beside it) or a tool manifest's folder. */
  toolPath?: string;
  commandTimeoutMs?: number;
  isTargetAlive?: (pid: number) => Promise<boolean>;
}

/** A reading that always says which tier gave its series. */
export type TieredReading = SampleReading & { tiers: NonNullable<SampleReading['tiers']> };

export interface ClrTiersSampler extends HeapSampler {
  sample(index: number, signal?: AbortSignal): Promise<TieredReading>;
  /** The first and last gcdumps read, for the retention step. */
  snapshots(): { first?: Snapshot; last?: Snapshot };
  /** How many samples each tier gave. */
  tierCounts(): { sizes: number; types: number; sizesTier: HeapTrendTier };
}

export interface Snapshot {
  file: string;
  index: number;
  dump: GcDump;
}

/** Per-generation series from the counters (the ids `eeheap -gc` gives: gen0…poh). */
export function generationsOf(counters: ClrCounters): HeapTrendSampleHeap[] {
  const parts: [string, number | undefined][] = [
    ['gen0', counters.gen0Kb],
    ['gen1', counters.gen1Kb],
    ['gen2', counters.gen2Kb],
    ['loh', counters.lohKb],
    ['poh', counters.pohKb],
  ];
  return parts.flatMap(([id, kb]) => (kb === undefined ? [] : [{ id, committedKb: kb }]));
}

interface TypesResult {
  snap: Snapshot;
  bytes: number;
  /** The tool's spawn to exit (an upper bound of the induced GC's pause). */
  durationMs: number;
  /** performance.now() at the middle of the collect: when the heap was walked, near enough. */
  takenAt: number;
  /** The counters read just before the collect (their GC pause total is the baseline). */
  countersBefore?: ClrCounters;
  /** Unix ms when the collect ended: counters published after it hold its GC's pause. */
  endedWall: number;
}

export function createClrTiersSampler(options: ClrTiersSamplerOptions): ClrTiersSampler {
  const alive = options.isTargetAlive ?? processExists;
  const timeoutMs = options.commandTimeoutMs ?? 120_000;
  const every = Math.max(1, options.typesEvery);
  let first: Snapshot | undefined;
  let last: Snapshot | undefined;
  let sizes = 0;
  let types = 0;
  let countersFailed = options.counters === undefined;
  let sizesTier: HeapTrendTier = countersFailed ? 'gcdump' : 'counters';
  /** A snapshot being taken in the background while the sizes go on at their pace. */
  let inFlight: Promise<TypesResult | { error: unknown }> | undefined;
  /** Set when `inFlight` has settled (a promise cannot be asked without waiting). */
  let inFlightDone = false;
  /** Unix ms when the background collect ended (0 while it runs or when it failed). */
  let inFlightEnded = 0;
  let pendingSince = -1;
  /** The baseline snapshot taken by prepare(), before the clock: sample 0 carries it. */
  let baseline: TypesResult | undefined;

  const collect = async (
    index: number,
    signal: AbortSignal | undefined,
    countersBefore: ClrCounters | undefined,
  ): Promise<TypesResult> => {
    await mkdir(options.dir, { recursive: true });
    const file = join(options.dir, `sample-${String(index).padStart(4, '0')}.gcdump`);
    const began = performance.now();
    let durationMs: number;
    try {
      ({ durationMs } = await collectGcDump(options.pid, file, {
        timeoutMs,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.toolPath === undefined ? {} : { toolPath: options.toolPath }),
        ...(signal === undefined ? {} : { signal }),
      }));
    } catch (error) {
      await rm(file, { force: true });
      if (isHarnessError(error) && error.code === 'TARGET' && !(await alive(options.pid))) {
        throw new TargetGoneError(`the target (pid ${options.pid}) is gone: ${error.shortMessage}`);
      }
      throw error;
    }
    const { dump, bytes } = await loadGcDump(file);
    return {
      snap: { file, index, dump },
      bytes,
      durationMs,
      takenAt: began + durationMs / 2,
      endedWall: Date.now(),
      ...(countersBefore === undefined ? {} : { countersBefore }),
    };
  };

  /** The snapshot's types into the reading, and the snapshot kept as first or last. */
  const attach = async (
    reading: TieredReading,
    result: TypesResult,
    sampleStart: number,
  ): Promise<void> => {
    const { snap } = result;
    types++;
    reading.clrTypes = typeHistogram(snap.dump).map((row) => ({
      id: row.name,
      committedKb: row.bytes / 1024,
      count: row.count,
    }));
    reading.tiers.clrTypes = 'gcdump';
    reading.clrTypesOffsetMs = Math.round(result.takenAt - sampleStart);
    reading.gcdumpBytes = result.bytes;
    reading.suspendedMs = result.durationMs;
    reading.suspendedHow = 'upper-bound';
    // The runtime's own GC pause total across the snapshot (its induced GC, and any other GC in
    // the same window): the target's real stop, tighter than the tool's run. A total that did not
    // move is a counter not yet refreshed (the snapshot's induced GC always pauses), never a
    // measured 0: the tool's run stays the upper bound then (seen in a CI rehearsal under load).
    const before = result.countersBefore?.gcPauseTotalMs;
    const after = reading.counters?.gcPauseTotalMs;
    const afterTime = Date.parse(reading.counters?.time ?? '');
    if (
      before !== undefined &&
      after !== undefined &&
      after > before &&
      afterTime >= result.endedWall
    ) {
      reading.suspendedUpperBoundMs = result.durationMs;
      reading.suspendedMs = Math.round((after - before) * 10) / 10;
      reading.suspendedHow = 'measured';
    }
    if (reading.heaps.length === 0) {
      reading.heaps = [{ id: 'gc-heap', committedKb: snap.dump.totalSize / 1024 }];
      reading.tiers.heaps = 'gcdump';
      sizes++;
    }
    if (first === undefined) first = snap;
    else {
      if (last !== undefined && options.keepDumps !== true) await rm(last.file, { force: true });
      last = snap;
    }
    if (snap === first || options.keepDumps === true) reading.gcdumpFile = snap.file;
  };

  const settle = async (): Promise<TypesResult | undefined> => {
    if (inFlight === undefined) return undefined;
    const outcome = await inFlight;
    inFlight = undefined;
    if ('error' in outcome) throw outcome.error;
    return outcome;
  };

  return {
    engine: 'dotnet-dump',
    source: 'clr-generation',
    // Before the clock starts: the counters' first reading (the channel session takes a second or
    // two to publish) and the baseline snapshot, so sample 0 takes no longer than the others.
    async prepare(signal) {
      if (options.counters === undefined) return;
      const counters = await options.counters.latest(signal).catch((error: unknown) => {
        if (signal?.aborted === true) throw error;
        return undefined;
      });
      if (counters === undefined) return; // sample 0 says why and falls back to gcdumps
      const result = await collect(0, signal, counters);
      // The counters published after the collect hold its GC's pause.
      await options.counters.since?.(result.endedWall, 5000, signal).catch(() => undefined);
      baseline = result;
    },
    async sample(index, signal) {
      const sampleStart = performance.now();
      const warnings: string[] = [];
      let counters: ClrCounters | undefined;
      if (!countersFailed && options.counters !== undefined) {
        try {
          counters = await options.counters.latest(signal);
        } catch (error) {
          if (signal?.aborted === true) throw error;
          warnings.push(
            `counters: ${shortErrorMessage(error)}; sizes come from gcdumps from now on`,
          );
        }
        if (counters === undefined) {
          countersFailed = true;
          sizesTier = 'gcdump';
        }
      }
      const reading: TieredReading = {
        heaps: counters === undefined ? [] : generationsOf(counters),
        suspendedMs: 0,
        suspendedHow: 'never',
        warnings,
        tiers: counters === undefined ? {} : { heaps: 'counters' },
        ...(counters === undefined ? {} : { counters }),
      };
      if (counters !== undefined) sizes++;
      const isLast = options.samples !== undefined && index === options.samples - 1;
      const due = index % every === 0 || isLast || countersFailed;
      // Without counters the snapshot IS the sample: taken in the foreground, every sample.
      if (countersFailed) {
        await attach(reading, await collect(index, signal, undefined), sampleStart);
        return reading;
      }
      // A snapshot that finished since the previous sample goes into this one.
      // ... once the counters in hand were published after it ended (they then hold its pause).
      const countersAfter =
        counters?.time !== undefined && Date.parse(counters.time) >= inFlightEnded;
      if (inFlight !== undefined && (isLast || (inFlightDone && countersAfter))) {
        const done = await settle();
        if (done !== undefined) await attach(reading, done, sampleStart);
        if (pendingSince >= 0 && index - pendingSince > every) {
          warnings.push(
            `the gcdump started at sample ${pendingSince} took ${index - pendingSince} intervals`,
          );
        }
        pendingSince = -1;
        return reading;
      }
      if (index === 0 && baseline !== undefined) {
        await attach(reading, baseline, sampleStart);
        baseline = undefined;
        return reading;
      }
      if (!due || inFlight !== undefined) return reading;
      // The first and the last snapshot in the foreground: the baseline and the final graph are
      // there whatever the tool's speed; the ones between go in the background.
      if (isLast || index === 0) {
        const result = await collect(index, signal, counters);
        // The counters published after the collect hold its GC's pause (one interval later).
        const after = await options.counters
          ?.since?.(result.endedWall, 5000, signal)
          .catch(() => undefined);
        if (after !== undefined) reading.counters = after;
        await attach(reading, result, sampleStart);
        return reading;
      }
      // In the background: the sizes keep their interval while the tool runs.
      pendingSince = index;
      inFlightDone = false;
      inFlightEnded = 0;
      inFlight = collect(index, signal, counters)
        .then((result) => {
          inFlightEnded = result.endedWall;
          return result;
        })
        .catch((error: unknown) => ({ error }))
        .finally(() => {
          inFlightDone = true;
        });
      return reading;
    },
    snapshots: () => ({
      ...(first === undefined ? {} : { first }),
      ...(last === undefined ? {} : { last }),
    }),
    tierCounts: () => ({ sizes, types, sizesTier }),
    async close() {
      // A snapshot still being taken when the run ended: kept for the retention step only.
      const done = await settle().catch(() => undefined);
      if (done !== undefined) {
        if (first === undefined) first = done.snap;
        else last = done.snap;
      }
      await options.counters?.close();
    },
  };
}
