// Turns samples into per-heap (or per-region) series and judges each one: least-squares slope in
// KB per minute with R², share of intervals that grew, total growth, projection to a limit, the
// suspect rule and a ranking. Pure: the same samples always give the same report.
//
// Heaps come and go during a run (a heap created mid-run, a region freed). A series is built from
// the samples in which its id is present; the x axis is real elapsed time, so a gap simply leaves
// a longer step between two points and the slope stays honest. Intervals are counted between
// consecutive appearances.
import { fitLine, growthShare, round } from './regression.js';
import { DEFAULT_SUSPECT_RULE, failedConditions, ruleText } from './suspect-rule.js';
import type {
  HeapTrendAnalysis,
  HeapTrendProjection,
  HeapTrendSample,
  HeapTrendSeries,
  SeriesStats,
  SuspectRule,
} from './types.js';

export type TrendSampleInput = Pick<HeapTrendSample, 'time' | 'elapsedMs' | 'heaps'> & {
  totalCommittedKb?: number;
};

export interface AnalyzeOptions {
  rule?: Partial<SuspectRule>;
  /** Projection target for the total commit, in KB (`--limit 2GB`). */
  limitKb?: number;
  /** Words used in the rule text. */
  unit?: 'heap' | 'region' | 'type' | 'category' | 'generation';
}

// One series' points, in typed arrays sized for every sample up front: a run of 200 samples ×
// 5,000 .NET types is a million points, and growing plain arrays point by point spent most of the
// time in the garbage collector (bench/heap-trend-types.ts).
interface SeriesBuilder {
  id: string;
  n: number;
  xs: Float64Array;
  ys: Float64Array;
  reserved: Float64Array;
  indices: Int32Array;
}

const MS_PER_MIN = 60_000;

function stats(xs: ArrayLike<number>, ys: ArrayLike<number>, n = ys.length): SeriesStats {
  const fit = fitLine(xs, ys, n);
  const firstKb = ys[0] ?? 0;
  const lastKb = ys[n - 1] ?? 0;
  return {
    samples: n,
    firstKb,
    lastKb,
    growthKb: lastKb - firstKb,
    slopeKbPerMin: round(fit.slope),
    r2: round(fit.r2, 4),
    growthShare: round(growthShare(ys, n), 4),
  };
}

function minutesToLimit(limitKb: number, currentKb: number, slopeKbPerMin: number): number | null {
  if (currentKb >= limitKb) return 0;
  if (!(slopeKbPerMin > 0)) return null;
  return round((limitKb - currentKb) / slopeKbPerMin, 2);
}

/** Suspects first, then steeper, then bigger growth; ids break ties so the order is stable. */
function compareSeries(a: HeapTrendSeries, b: HeapTrendSeries): number {
  if (a.suspect !== b.suspect) return a.suspect ? -1 : 1;
  if (b.slopeKbPerMin !== a.slopeKbPerMin) return b.slopeKbPerMin - a.slopeKbPerMin;
  if (b.growthKb !== a.growthKb) return b.growthKb - a.growthKb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function analyzeHeapTrend(
  samples: readonly TrendSampleInput[],
  options: AnalyzeOptions = {},
): HeapTrendAnalysis {
  const rule: SuspectRule = { ...DEFAULT_SUSPECT_RULE, ...options.rule };
  const builders = new Map<string, SeriesBuilder>();
  const capacity = samples.length;
  const totalXs: number[] = [];
  const totalYs: number[] = [];
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index];
    if (sample === undefined) continue;
    const x = sample.elapsedMs / MS_PER_MIN;
    let total = 0;
    for (const heap of sample.heaps) {
      total += heap.committedKb;
      let builder = builders.get(heap.id);
      if (builder === undefined) {
        builder = {
          id: heap.id,
          n: 0,
          xs: new Float64Array(capacity),
          ys: new Float64Array(capacity),
          reserved: new Float64Array(capacity),
          indices: new Int32Array(capacity),
        };
        builders.set(heap.id, builder);
      }
      // The same id twice in one sample (two rows for one heap) is summed into one point.
      const last = builder.n - 1;
      if (last >= 0 && builder.indices[last] === index) {
        builder.ys[last] = (builder.ys[last] ?? 0) + heap.committedKb;
        builder.reserved[last] = (builder.reserved[last] ?? 0) + (heap.reservedKb ?? Number.NaN);
        continue;
      }
      const at = builder.n++;
      builder.xs[at] = x;
      builder.ys[at] = heap.committedKb;
      builder.reserved[at] = heap.reservedKb ?? Number.NaN;
      builder.indices[at] = index;
    }
    totalXs.push(x);
    totalYs.push(sample.totalCommittedKb ?? total);
  }

  const lastIndex = samples.length - 1;
  const total = stats(totalXs, totalYs);
  const lastSample = samples[lastIndex];
  const series: HeapTrendSeries[] = [];
  for (const builder of builders.values()) {
    const n = builder.n;
    const xs = builder.xs.subarray(0, n);
    const ys = builder.ys.subarray(0, n);
    const reserved = builder.reserved.subarray(0, n);
    const s = stats(xs, ys, n);
    const failed = failedConditions(s, rule);
    const first = builder.indices[0] ?? 0;
    const last = builder.indices[n - 1] ?? 0;
    let gaps = 0;
    for (let i = 1; i < n; i++) {
      if ((builder.indices[i] ?? 0) - (builder.indices[i - 1] ?? 0) > 1) gaps++;
    }
    let maxKb = 0;
    for (const y of ys) if (y > maxKb) maxKb = y;
    const entry: HeapTrendSeries = {
      id: builder.id,
      ...s,
      suspect: failed.length === 0,
      rank: 0,
      reasons: failed.length === 0 ? ['meets every condition of the rule'] : failed,
      firstSampleIndex: first,
      lastSampleIndex: last,
      gaps,
      appeared: first > 0,
      disappeared: last < lastIndex,
      maxKb,
    };
    if (reserved.every((v) => !Number.isNaN(v))) {
      entry.reservedFirstKb = reserved[0] ?? 0;
      entry.reservedLastKb = reserved[n - 1] ?? 0;
      entry.reservedSlopeKbPerMin = round(fitLine(xs, reserved, n).slope);
    }
    if (options.limitKb !== undefined) {
      entry.minutesToLimit = minutesToLimit(options.limitKb, total.lastKb, entry.slopeKbPerMin);
    }
    series.push(entry);
  }
  series.sort(compareSeries);
  series.forEach((entry, i) => {
    entry.rank = i + 1;
  });

  let projection: HeapTrendProjection | null = null;
  if (options.limitKb !== undefined) {
    const minutes = minutesToLimit(options.limitKb, total.lastKb, total.slopeKbPerMin);
    const lastTime = lastSample === undefined ? Number.NaN : Date.parse(lastSample.time);
    projection = {
      limitKb: options.limitKb,
      slopeKbPerMin: total.slopeKbPerMin,
      lastKb: total.lastKb,
      minutesToLimit: minutes,
      reachesAt:
        minutes === null || Number.isNaN(lastTime)
          ? null
          : new Date(lastTime + minutes * MS_PER_MIN).toISOString(),
    };
  }

  return {
    series,
    ranking: series.map((s) => s.id),
    rule: ruleText(rule, options.unit),
    ruleParameters: rule,
    total,
    projection,
  };
}
