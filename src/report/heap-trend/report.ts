// Assembles report.json from the samples and what the run knows about itself (target, engine, how
// it ended, threshold dumps, umdh). Pure: the workflow writes the files.
import { analyzeHeapTrend } from './analysis.js';
import { round } from './regression.js';
import { tiersViewText } from './tiers-view.js';
import type {
  HeapTrendCadence,
  HeapTrendEngine,
  HeapTrendReport,
  HeapTrendSample,
  HeapTrendSampleHeap,
  HeapTrendSecondary,
  HeapTrendSeriesKind,
  HeapTrendSource,
  HeapTrendStatus,
  RetentionEntry,
  SuspectRule,
  ThresholdDump,
} from './types.js';
import type { UmdhTrend } from './umdh-trend.js';
import { retentionGroups } from './retention-groups.js';
import { verdictOf } from './verdict.js';

/** What the numbers are, in words: the committed-memory view must never pass for a heap view. */
export function viewText(source: HeapTrendSource, fromDumps = false): string {
  switch (source) {
    case 'heap':
      if (fromDumps) {
        return (
          'Per-heap view: reserved and committed KB of every process heap (as `!heap -s -h 0` lists ' +
          'them), each walked in every full dump to its sub-heaps/segments and large blocks and sized ' +
          'from the memory list of each dump, with no debugger; memory by category beside it.'
        );
      }
      return (
        'Per-heap view: reserved and committed KB of every NT heap, from `!heap -s -h 0` in a short ' +
        'noninvasive cdb attach per sample (the target is suspended for the length of each attach).'
      );
    case 'committed-memory':
      return (
        'Committed-memory view, NOT a per-heap one: committed private memory of the target from ' +
        'winedbg `info maps <pid>` (VirtualQueryEx, no attach: the target is never suspended), ' +
        'grouped into regions of contiguous private allocations. A heap shows up as the region(s) ' +
        'holding its segments; memory committed with VirtualAlloc outside any heap is counted too.'
      );
    case 'clr-generation':
      return (
        'Managed-heap view: committed KB of each GC generation or area (gen0/gen1/gen2, loh, poh, ' +
        'nongc) from SOS `eeheap -gc`, and per type from `dumpheap -stat`, ' +
        (fromDumps
          ? 'read from each dump of the series.'
          : 'read from a heap dump written per sample (`dotnet-dump collect --type Heap`: the ' +
            'target is stopped while the dump is written; every sample records for how long).')
      );
    case 'category':
      return (
        'Memory by category (image, mapped file, shareable, heap, managed heap, stack, private ' +
        'data, other; free and reserved totals), committed KB each, from the memory list of each ' +
        'full dump (the heaps its PEB lists and the stacks its threads give) with no debugger.'
      );
  }
}

/** How many per-type series report.json keeps (the most suspicious first). */
export const SECONDARY_SERIES_LIMIT = 100;

const UNIT: Record<HeapTrendSeriesKind, 'heap' | 'region' | 'type' | 'category' | 'generation'> = {
  heap: 'heap',
  'committed-memory': 'region',
  'clr-generation': 'generation',
  'clr-type': 'type',
  category: 'category',
};

/** The series of one kind beside the main ones (`clrTypes`, `categories`), cut to the limit. */
export function secondaryAnalysis(
  samples: readonly HeapTrendSample[],
  pick: (sample: HeapTrendSample) => HeapTrendSampleHeap[] | undefined,
  kind: HeapTrendSeriesKind,
  options: { rule?: Partial<SuspectRule>; limit?: number } = {},
): HeapTrendSecondary | undefined {
  const inputs = samples.flatMap((sample) => {
    const heaps = pick(sample);
    if (heaps === undefined) return [];
    // Per-type readings can be taken apart from the sample that carries them (a gcdump in the
    // background): their own time is the x axis.
    const own = kind === 'clr-type' ? sample.clrTypesElapsedMs : undefined;
    return [
      own === undefined
        ? { time: sample.time, elapsedMs: sample.elapsedMs, heaps }
        : { time: sample.clrTypesTime ?? sample.time, elapsedMs: own, heaps },
    ];
  });
  if (inputs.length === 0) return undefined;
  const analysis = analyzeHeapTrend(inputs, {
    ...(options.rule === undefined ? {} : { rule: options.rule }),
    unit: UNIT[kind],
  });
  const limit = options.limit ?? SECONDARY_SERIES_LIMIT;
  const series = analysis.series.slice(0, limit);
  const first = inputs[0]?.heaps;
  const last = inputs[inputs.length - 1]?.heaps;
  for (const entry of series) {
    entry.kind = kind;
    if (kind === 'clr-type') {
      const firstCount = first?.find((h) => h.id === entry.id)?.count;
      const lastCount = last?.find((h) => h.id === entry.id)?.count;
      if (firstCount !== undefined) entry.countFirst = firstCount;
      if (lastCount !== undefined) entry.countLast = lastCount;
    }
  }
  return {
    kind,
    series,
    seriesCount: analysis.series.length,
    rule: analysis.rule,
    total: analysis.total,
  };
}

/** What the samples cost the target: totals, and whether the figures are measured or bounds. */
export function suspensionOf(samples: readonly HeapTrendSample[]): HeapTrendReport['suspension'] {
  let totalMs = 0;
  let maxMs = 0;
  let upperMs = 0;
  const hows = new Set<string>();
  for (const sample of samples) {
    totalMs += sample.suspendedMs;
    upperMs += sample.suspendedUpperBoundMs ?? sample.suspendedMs;
    if (sample.suspendedMs > maxMs) maxMs = sample.suspendedMs;
    if (sample.suspendedHow !== undefined) hows.add(sample.suspendedHow);
  }
  const [only] = hows;
  const how = hows.size > 1 ? 'mixed' : (only as HeapTrendReport['suspension']['how']);
  return {
    totalMs: round(totalMs, 1),
    maxMs: round(maxMs, 1),
    meanMs: samples.length === 0 ? 0 : round(totalMs / samples.length, 1),
    ...(how === undefined ? {} : { how }),
    ...(hows.has('measured')
      ? {
          method:
            "the target's thread states (/proc/PID/task/*/stat: every thread in tracing stop) polled while the dump was written",
          upperBoundTotalMs: round(upperMs, 1),
        }
      : {}),
  };
}

/** Asked against achieved spacing, start to start of consecutive samples. */
export function cadenceOf(samples: readonly HeapTrendSample[], askedMs: number): HeapTrendCadence {
  const gaps: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    if (a !== undefined && b !== undefined) gaps.push(b.elapsedMs - a.elapsedMs);
  }
  const overruns = samples.filter((s) => s.overran === true).length;
  if (gaps.length === 0) return { askedMs, overruns };
  const sorted = [...gaps].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1
      ? (sorted[mid] ?? 0)
      : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return {
    askedMs,
    medianMs: round(median, 1),
    minMs: sorted[0] ?? 0,
    maxMs: sorted[sorted.length - 1] ?? 0,
    overruns,
  };
}

export interface HeapTrendReportMeta {
  target: { pid: number; name?: string };
  engine: HeapTrendEngine;
  source: HeapTrendSource;
  intervalMs: number;
  startedAt: string;
  endedAt: string;
  status: HeapTrendStatus;
  message?: string;
  dumps?: readonly ThresholdDump[];
  umdh?: { snapshots: string[]; trend?: UmdhTrend; error?: string };
  warnings?: readonly string[];
  limitKb?: number;
  rule?: Partial<SuspectRule>;
  retention?: readonly RetentionEntry[];
  managedNote?: string;
  inputs?: HeapTrendReport['inputs'];
  /** The samples were read from a series of dumps. */
  fromDumps?: boolean;
  /** Live .NET tiers (issue 32): which tier gave each series; it also sets the view text. */
  tiers?: HeapTrendReport['tiers'];
}

export function buildHeapTrendReport(
  allSamples: readonly HeapTrendSample[],
  meta: HeapTrendReportMeta,
): HeapTrendReport {
  // A sample marked unused (SOS could not walk a heap dumped mid-GC) is left out of every series
  // and said so in the warnings; it still counts in the cadence and the stop it cost the target.
  const samples = allSamples.filter((s) => s.unused === undefined);
  const unusedWarnings = allSamples.flatMap((s) =>
    s.unused === undefined ? [] : [`sample ${s.index} not used: ${s.unused}`],
  );
  const analysis = analyzeHeapTrend(samples, {
    ...(meta.rule === undefined ? {} : { rule: meta.rule }),
    ...(meta.limitKb === undefined ? {} : { limitKb: meta.limitKb }),
    unit: UNIT[meta.source],
  });
  for (const entry of analysis.series) entry.kind = meta.source;
  const rule = meta.rule === undefined ? {} : { rule: meta.rule };
  const clrTypes = secondaryAnalysis(samples, (s) => s.clrTypes, 'clr-type', rule);
  const categories =
    meta.source === 'category'
      ? undefined
      : secondaryAnalysis(samples, (s) => s.categories, 'category', rule);
  const clrGenerations =
    meta.source === 'clr-generation'
      ? undefined
      : secondaryAnalysis(samples, (s) => s.clrGenerations, 'clr-generation', rule);
  const suspension = suspensionOf(allSamples);
  const memoryTotals = samples.findLast((s) => s.memoryTotals !== undefined)?.memoryTotals;
  const report: HeapTrendReport = {
    schemaVersion: 1,
    target: meta.target,
    engine: meta.engine,
    source: meta.source,
    view:
      meta.tiers?.series === undefined
        ? viewText(meta.source, meta.fromDumps === true)
        : tiersViewText(meta.tiers),
    status: meta.status,
    ...(meta.message === undefined ? {} : { message: meta.message }),
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
    intervalMs: meta.intervalMs,
    sampleCount: allSamples.length,
    ...analysis,
    dumps: [...(meta.dumps ?? [])],
    suspension,
    ...(meta.fromDumps === true ? {} : { cadence: cadenceOf(allSamples, meta.intervalMs) }),
    ...(meta.umdh === undefined ? {} : { umdh: meta.umdh }),
    warnings: [...(meta.warnings ?? []), ...unusedWarnings],
    seriesKind: meta.source,
    ...(clrTypes === undefined ? {} : { clrTypes }),
    ...(categories === undefined ? {} : { categories }),
    ...(clrGenerations === undefined ? {} : { clrGenerations }),
    ...(meta.retention === undefined ? {} : { retention: [...meta.retention] }),
    ...(meta.managedNote === undefined ? {} : { managedNote: meta.managedNote }),
    ...(meta.inputs === undefined ? {} : { inputs: meta.inputs }),
    ...(memoryTotals === undefined ? {} : { memoryTotals: { ...memoryTotals } }),
    ...(meta.tiers === undefined ? {} : { tiers: meta.tiers }),
  };
  if (meta.retention !== undefined && meta.retention.length > 0) {
    report.retentionGroups = retentionGroups(meta.retention, clrTypes);
  }
  report.verdict = verdictOf(report, samples.length);
  return report;
}
