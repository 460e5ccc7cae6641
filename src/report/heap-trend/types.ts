import type { DialectName } from '../../engine/dialects/index.js';
import type { RetentionEntry, RetentionGroup } from './retention-types.js';
import type { UmdhTrend } from './umdh-trend.js';

export type { RetentionEntry, RetentionGroup, RetentionRoot } from './retention-types.js';

// The heap-trend data model: one sample per line of samples.ndjson, and report.json. Field names
// listed in shared/spec/records.md ("heap-trend") are the published API; the rest are additions.

/**
 * What a sample's `heaps` are: `heap`, per-heap sizes from `!heap -s -h 0`; `committed-memory`,
 * winedbg `info maps` regions; `clr-generation`, the GC's generations and areas from SOS
 * `!eeheap -gc`; `category`, memory by category (image, mapped file, shareable, heap, managed heap,
 * stack, private data, other) from a dump's memory list, `!address -summary` or winedbg `info maps`.
 */
export type HeapTrendSource = 'heap' | 'committed-memory' | 'clr-generation' | 'category';

/** Every kind of series a report can hold: the sources, and the per-type sizes of `!dumpheap -stat`. */
export type HeapTrendSeriesKind = HeapTrendSource | 'clr-type';

/** The debugger, or `builtin` when `--from-dumps` read Windows dumps with no debugger. */
export type HeapTrendEngine = DialectName | 'builtin';

export interface HeapTrendSampleHeap {
  /** A heap address (`0x…`) for `heap`; a region id (`region@0x…`) for `committed-memory`. */
  id: string;
  reservedKb?: number;
  committedKb: number;
  /** `clr-type`: the number of objects of the type. */
  count?: number;
}

/**
 * Which tier of a live .NET run gave a series (issue 32): `counters`, the runtime's own counters
 * (System.Runtime, read over its diagnostics channel: no pause); `gcdump`, a `dotnet-gcdump`
 * snapshot (one induced GC); `dump`, a heap dump read by SOS (`dotnet-dump collect` + `analyze`).
 */
export type HeapTrendTier = 'counters' | 'gcdump' | 'dump';

/** The runtime's counters at a sample (System.Runtime), when the counters tier read them. */
export interface ClrCounters {
  /** When the runtime published them (ISO 8601). */
  time?: string;
  gcHeapSizeKb?: number;
  gen0Kb?: number;
  gen1Kb?: number;
  gen2Kb?: number;
  lohKb?: number;
  pohKb?: number;
  /** Memory the GC has committed. */
  gcCommittedKb?: number;
  workingSetKb?: number;
  /** Bytes allocated per second over the counter interval, in KB. */
  allocRateKbPerSec?: number;
  /** Collections since the counters started, per generation. */
  gen0Collections?: number;
  gen1Collections?: number;
  gen2Collections?: number;
  /** Time the GC has paused the process since the counters started (ms). */
  gcPauseTotalMs?: number;
  /** % of the time in GC since the previous GC ended. */
  timeInGcPercent?: number;
}

/** One tier's part in a report: what it gave, with which tool, how often. */
export interface HeapTrendTierUse {
  tier: HeapTrendTier;
  /** The tool or channel: `System.Runtime counters`, `dotnet-gcdump collect`. */
  tool: string;
  /** Samples that have this series from this tier. */
  samples: number;
  /** Every how many samples the tier runs (1: every sample). */
  every?: number;
  /** The file it was read from (retention: the last gcdump or dump). */
  file?: string;
}

/** The whole address space beside the categories, where the source tells them (KB). */
export interface MemoryTotals {
  committedKb?: number;
  reservedKb?: number;
  freeKb?: number;
}

export interface HeapTrendSample {
  /** Wall-clock time the sample was taken (ISO 8601). */
  time: string;
  heaps: HeapTrendSampleHeap[];
  /** How long the target was suspended by this sample (0: the committed-memory view never stops it). */
  suspendedMs: number;
  source: HeapTrendSource;
  // ---- additions ------------------------------------------------------------------------------
  /** 0-based sample number. */
  index: number;
  /** Milliseconds since the run started (monotonic clock): the x axis of every slope. */
  elapsedMs: number;
  /** Sum of committedKb over heaps: the total the `--dump-at` thresholds watch. */
  totalCommittedKb: number;
  /** How long taking the sample took. */
  durationMs: number;
  engine: HeapTrendEngine;
  /** umdh snapshot file taken right after this sample, when `--umdh` asked for one. */
  umdhSnapshot?: string;
  warnings: string[];
  /** Per-type sizes (`!dumpheap -stat`): id = type name, committedKb = its bytes / 1024. */
  clrTypes?: HeapTrendSampleHeap[];
  /** Memory by category, when it is not the sample's main source. */
  categories?: HeapTrendSampleHeap[];
  /** Committed, reserved and free totals of the address space, when categories were read. */
  memoryTotals?: MemoryTotals;
  /** GC generations (SOS `!eeheap -gc`), when they are not the sample's main source (cdb + SOS). */
  clrGenerations?: HeapTrendSampleHeap[];
  /** The dump this sample was read from (`--from-dumps`, or a live sample's dump kept by --keep-dumps). */
  dumpFile?: string;
  // ---- additions (issue 32) -------------------------------------------------------------------
  /**
   * How `suspendedMs` was known: `measured` from the target's thread states (Linux /proc), an
   * `upper-bound` (the dump tool's or the debugger's run, which holds the stop and more), or
   * `never` (a view that does not stop the target).
   */
  suspendedHow?: 'measured' | 'upper-bound' | 'never';
  /** The sampler's own timing of the stop, when `suspendedMs` is measured (ms). */
  suspendedUpperBoundMs?: number;
  /** Which tier gave this sample's `heaps` and `clrTypes`. */
  tiers?: { heaps?: HeapTrendTier; clrTypes?: HeapTrendTier };
  /** The runtime's counters at this sample (the counters tier). */
  counters?: ClrCounters;
  /** The gcdump this sample's types were read from, when it is kept (`--from-gcdumps`, first, last). */
  gcdumpFile?: string;
  /** Bytes of the gcdump written for this sample. */
  gcdumpBytes?: number;
  /** When `clrTypes` were taken, when not at `time` (a gcdump taken while the sizes went on). */
  clrTypesTime?: string;
  /** The same as `elapsedMs` (the x axis of the per-type slopes). */
  clrTypesElapsedMs?: number;
  /** Taking the sample took longer than the interval asked for: the next one came late. */
  overran?: boolean;
  /**
   * Why the sample's readings are left out of every series (the debugger's own words, e.g. SOS's
   * "The GC heap is not in a valid state for traversal" for a dump taken mid-GC).
   */
  unused?: string;
}

/** The thresholds of the leak-suspect rule; `ruleText()` says them in words. */
export interface SuspectRule {
  minSamples: number;
  /** Least-squares slope of committed KB over minutes must be greater than this. */
  minSlopeKbPerMin: number;
  minR2: number;
  /** Share (0..1) of the intervals between consecutive samples in which the heap grew. */
  minGrowthShare: number;
  /** Last minus first committed KB must be at least this. */
  minGrowthKb: number;
}

export interface SeriesStats {
  samples: number;
  firstKb: number;
  lastKb: number;
  growthKb: number;
  slopeKbPerMin: number;
  r2: number;
  growthShare: number;
}

export interface HeapTrendSeries extends SeriesStats {
  id: string;
  suspect: boolean;
  // ---- additions ------------------------------------------------------------------------------
  /** 1 = most suspicious. */
  rank: number;
  /** Why the rule did (or did not) flag this series, one phrase per condition that failed. */
  reasons: string[];
  firstSampleIndex: number;
  lastSampleIndex: number;
  /** Runs of samples, between the first and last appearance, in which the heap was missing. */
  gaps: number;
  /** Absent from the first sample (a heap created during the run). */
  appeared: boolean;
  /** Absent from the last sample (a heap destroyed during the run). */
  disappeared: boolean;
  maxKb: number;
  reservedFirstKb?: number;
  reservedLastKb?: number;
  reservedSlopeKbPerMin?: number;
  /** Minutes until the total commit reaches `--limit` if this heap keeps its slope and the rest stay flat. */
  minutesToLimit?: number | null;
  /** What the series measures (the report's `seriesKind` for `series`). */
  kind?: HeapTrendSeriesKind;
  /** `clr-type`: object counts in the first and last sample that had the type. */
  countFirst?: number;
  countLast?: number;
}

/** A second set of series beside the main one: per type, or per category. */
export interface HeapTrendSecondary {
  kind: HeapTrendSeriesKind;
  /** The most suspicious series first, at most `limit` of them. */
  series: HeapTrendSeries[];
  /** How many series there were before the cut. */
  seriesCount: number;
  rule: string;
  total: SeriesStats;
}

export interface HeapTrendProjection {
  limitKb: number;
  /** Based on the slope of the total committed KB. */
  slopeKbPerMin: number;
  lastKb: number;
  /** null: the total is not growing, so it never reaches the limit at this rate. */
  minutesToLimit: number | null;
  /** Wall-clock time the limit is reached at this rate; null when never. */
  reachesAt: string | null;
}

export interface HeapTrendAnalysis {
  series: HeapTrendSeries[];
  /** Series ids, most suspicious first. */
  ranking: string[];
  rule: string;
  ruleParameters: SuspectRule;
  total: SeriesStats;
  projection: HeapTrendProjection | null;
}

export interface ThresholdDump {
  /** The `--dump-at` step that was crossed. */
  thresholdKb: number;
  /** The sample whose total commit crossed it. */
  sampleIndex: number;
  totalCommittedKb: number;
  path: string;
  time: string;
  /** The engine wrote the file. */
  written: boolean;
  /** processDump read it back and its process id matched the target. */
  verified: boolean;
  pid?: number;
  kind?: string;
  sizeBytes?: number;
  durationMs: number;
  /** How long the target was stopped to write it. */
  suspendedMs: number;
  error?: string;
}

/** Sample spacing: asked (`--interval`) against achieved (start to start of consecutive samples). */
export interface HeapTrendCadence {
  askedMs: number;
  /** Median, least and largest start-to-start spacing (ms); absent with fewer than 2 samples. */
  medianMs?: number;
  minMs?: number;
  maxMs?: number;
  /** Samples that took longer than the interval asked for. */
  overruns: number;
}

/** One flagged series, as the verdict names it. */
export interface VerdictSuspect {
  kind: HeapTrendSeriesKind;
  id: string;
  growthKb: number;
  slopeKbPerMin: number;
  r2: number;
  countFirst?: number;
  countLast?: number;
}

/**
 * What the report concludes, stated once: the CLI text, report.md, report.html and the exit code
 * all read it (verdict.ts).
 */
export interface HeapTrendVerdict {
  kind: 'leak' | 'no-leak' | 'inconclusive';
  /** The report's first sentence. */
  headline: string;
  /** Every flagged series of every block, the most telling kind first (types before generations). */
  suspects: VerdictSuspect[];
}

export type HeapTrendStatus = 'completed' | 'interrupted' | 'target-exited' | 'failed';

export interface HeapTrendReport extends HeapTrendAnalysis {
  schemaVersion: 1;
  target: { pid: number; name?: string };
  engine: HeapTrendEngine;
  source: HeapTrendSource;
  /** What the numbers measure, in words (the committed-memory view is not a per-heap one). */
  view: string;
  status: HeapTrendStatus;
  /** Why the run ended, in words, when it did not simply complete. */
  message?: string;
  startedAt: string;
  endedAt: string;
  intervalMs: number;
  sampleCount: number;
  dumps: ThresholdDump[];
  suspension: {
    totalMs: number;
    maxMs: number;
    meanMs: number;
    // ---- additions (issue 32) ----
    /** How the figures were known (see HeapTrendSample.suspendedHow); `mixed` when samples differ. */
    how?: 'measured' | 'upper-bound' | 'mixed' | 'never';
    /** How the measured ones were measured, in words. */
    method?: string;
    /** The samplers' own timing summed, beside a measured total (an upper bound of it). */
    upperBoundTotalMs?: number;
  };
  /** The spacing of the samples: the one asked for (`intervalMs`) and the one achieved. */
  cadence?: HeapTrendCadence;
  /** `--umdh`: the snapshots taken and their N-way trend (or why there is none). */
  umdh?: { snapshots: string[]; trend?: UmdhTrend; error?: string };
  warnings: string[];
  // ---- additions (issue 18) -------------------------------------------------------------------
  /** What `series` measures. */
  seriesKind?: HeapTrendSeriesKind;
  /** Per-type series (`clr-type`) from `!dumpheap -stat`, most suspicious first. */
  clrTypes?: HeapTrendSecondary;
  /** Memory-by-category series, when `series` is not already that. */
  categories?: HeapTrendSecondary;
  /** Per-generation series, when `series` is not already that (cdb + SOS). */
  clrGenerations?: HeapTrendSecondary;
  /** What holds the top suspect types. */
  retention?: RetentionEntry[];
  /** Why the managed series or the retention chains are missing, in words. */
  managedNote?: string;
  /** The address space's committed, reserved and free totals at the last sample that had them. */
  memoryTotals?: MemoryTotals;
  /** `--from-dumps`: the dumps read, in time order, and the ones skipped with why. */
  /** `fileBytes`: only for a name that is not valid UTF-8, its exact bytes (base64). */
  inputs?: { file: string; fileBytes?: string; time: string; used: boolean; error?: string }[];
  // ---- additions (issue 32) -------------------------------------------------------------------
  /** The one verdict the headline, the text, report.md, report.html and the exit code state. */
  verdict?: HeapTrendVerdict;
  /** The traced types grouped by what holds them (co-growing types, one holder). */
  retentionGroups?: RetentionGroup[];
  /** Which tier gave each series: the main one, the per-type one, the retention chains. */
  tiers?: { series?: HeapTrendTierUse; clrTypes?: HeapTrendTierUse; retention?: HeapTrendTierUse };
}
