// What a heap-trend sampler is: something that, asked once per interval, returns the target's
// heap (or region) sizes and how long it held the target still to get them.
import type { SessionOptions } from '../../engine/debugger-session.js';
import type { RetentionSuspect } from './retention.js';
import type {
  ClrCounters,
  HeapTrendEngine,
  HeapTrendSampleHeap,
  HeapTrendSource,
  HeapTrendTier,
  MemoryTotals,
  RetentionEntry,
} from '../../report/heap-trend/types.js';

export interface SampleReading {
  heaps: HeapTrendSampleHeap[];
  /** Time the target was suspended by this sample (0 when never): see `suspendedHow`. */
  suspendedMs: number;
  /** `measured` from the target's own thread states, or the sampler's timing, an `upper-bound`. */
  suspendedHow?: 'measured' | 'upper-bound' | 'never';
  /** The sampler's own timing (the dump tool's or debugger's run) when `suspendedMs` is measured. */
  suspendedUpperBoundMs?: number;
  warnings: string[];
  /** Per-type sizes, when the sampler reads them (`!dumpheap -stat`). */
  clrTypes?: HeapTrendSampleHeap[];
  /** GC generations, when they are not the sample's main series (cdb + SOS). */
  clrGenerations?: HeapTrendSampleHeap[];
  /** Memory by category, when the sampler can tell (winedbg info maps, cdb !address -summary). */
  categories?: HeapTrendSampleHeap[];
  /** The address space's committed, reserved and free totals beside the categories. */
  memoryTotals?: MemoryTotals;
  /** The dump the sample was read from, when it is kept. */
  dumpFile?: string;
  /** Live .NET tiers: which tier gave `heaps` and `clrTypes`, the counters, the gcdump. */
  tiers?: { heaps?: HeapTrendTier; clrTypes?: HeapTrendTier };
  counters?: ClrCounters;
  gcdumpFile?: string;
  gcdumpBytes?: number;
  /** When `clrTypes` were taken, relative to this sample's start (ms; negative: before it). */
  clrTypesOffsetMs?: number;
  /** Why the sample's readings must not be used (SOS's words), when so. */
  unused?: string;
}

export interface HeapSampler {
  readonly engine: HeapTrendEngine;
  readonly source: HeapTrendSource;
  /**
   * Work the run needs before its clock starts (the counters' first reading, the baseline
   * snapshot), so the first interval is as long as the others; optional.
   */
  prepare?(signal?: AbortSignal): Promise<void>;
  /** Takes sample number `index`. Throws TargetGoneError when the target no longer exists. */
  sample(index: number, signal?: AbortSignal): Promise<SampleReading>;
  /** Ends whatever debugger the sampler keeps open (never the target). */
  close(): Promise<void>;
}

/** A sampler that reads .NET types can also say what holds them (retention.ts). */
export interface RetentionSampler extends HeapSampler {
  /** The retention chains of `suspects`; `note` says what it cost the target, when it did. */
  retention(
    suspects: readonly RetentionSuspect[],
    budgetMs: number,
    objectsPerType?: number,
  ): Promise<{ entries: RetentionEntry[]; note?: string; keptDump?: string }>;
  /** Method tables of the last sample's types. */
  methodTableOf(type: string): string | undefined;
}

/** The target process has exited: the run ends and reports what it has. */
export class TargetGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetGoneError';
  }
}

/** Why a debugger is started: one heap sample, one threshold dump, or the retention step. */
export type DebuggerUse =
  | { purpose: 'sample'; index: number }
  | { purpose: 'dump'; thresholdKb: number; sampleIndex: number }
  | { purpose: 'retention' };

/**
 * Test seam (documented in the heap-trend workflow): the command line to run INSTEAD of the
 * debugger for one use, e.g. the cdb emulator with the scenario of sample i. Each cdb sample is a
 * new cdb process, and the emulator keeps no state between processes, so a test that wants sample
 * i to see transcript i points each use at its own scenario. Returning undefined runs the real
 * debugger.
 */
export type DebuggerCommandFactory = (use: DebuggerUse) => SessionOptions['debuggerCommandPrefix'];
