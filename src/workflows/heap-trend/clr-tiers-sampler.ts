// The default managed sampler of a live .NET process on Linux (issue 32): three tiers, each at its
// own cost.
// - Sizes, every sample: the runtime's own counters (System.Runtime: GC heap, generations, LOH,
//   POH, committed, working set, allocation rate, collections, GC pause), read over its
//   diagnostics channel. The target is never stopped for them.
// - Types, every `typesEvery` samples (and the first and the last): a `dotnet-gcdump collect`
//   snapshot (one induced GC), read here into counts and bytes per type (gcdump-file.ts).
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
import { isHarnessError } from '../../errors.js';
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

  const dropIfNotKept = async (snap: Snapshot | undefined): Promise<void> => {
    if (snap === undefined || snap === first || options.keepDumps === true) return;
    await rm(snap.file, { force: true });
  };

  const typesSample = async (
    index: number,
    signal?: AbortSignal,
  ): Promise<{ snap: Snapshot; bytes: number; durationMs: number }> => {
    await mkdir(options.dir, { recursive: true });
    const file = join(options.dir, `sample-${String(index).padStart(4, '0')}.gcdump`);
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
    return { snap: { file, index, dump }, bytes, durationMs };
  };

  return {
    engine: 'dotnet-dump',
    source: 'clr-generation',
    async sample(index, signal) {
      const warnings: string[] = [];
      let counters: ClrCounters | undefined;
      if (!countersFailed && options.counters !== undefined) {
        try {
          counters = await options.counters.latest(signal);
        } catch (error) {
          if (signal?.aborted === true) throw error;
          warnings.push(
            `counters: ${(error as Error).message}; sizes come from gcdumps from now on`,
          );
        }
        if (counters === undefined) {
          countersFailed = true;
          sizesTier = 'gcdump';
        }
      }
      const isLast = options.samples !== undefined && index === options.samples - 1;
      const wantTypes = countersFailed || index % every === 0 || isLast;
      const reading: TieredReading = {
        heaps: counters === undefined ? [] : generationsOf(counters),
        suspendedMs: 0,
        warnings,
        tiers: { heaps: counters === undefined ? 'gcdump' : 'counters' },
        ...(counters === undefined ? {} : { counters }),
      };
      if (counters !== undefined) sizes++;
      if (!wantTypes) return reading;
      const { snap, bytes, durationMs } = await typesSample(index, signal);
      types++;
      reading.clrTypes = typeHistogram(snap.dump).map((row) => ({
        id: row.name,
        committedKb: row.bytes / 1024,
        count: row.count,
      }));
      reading.tiers.clrTypes = 'gcdump';
      reading.gcdumpBytes = bytes;
      // The tool's spawn to exit: an upper bound of the induced GC's pause (the tool's own start
      // is in it; the counters' GC pause total, when read, says what the GC itself took).
      reading.suspendedMs = durationMs;
      if (counters === undefined) {
        reading.heaps = [{ id: 'gc-heap', committedKb: snap.dump.totalSize / 1024 }];
        sizes++;
      }
      if (first === undefined) first = snap;
      else {
        if (last !== undefined) await dropIfNotKept(last);
        last = snap;
      }
      if (snap === first || options.keepDumps === true) reading.gcdumpFile = snap.file;
      return reading;
    },
    snapshots: () => ({
      ...(first === undefined ? {} : { first }),
      ...(last === undefined ? {} : { last }),
    }),
    tierCounts: () => ({ sizes, types, sizesTier }),
    async close() {
      await options.counters?.close();
    },
  };
}
