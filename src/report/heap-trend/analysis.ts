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

interface SeriesBuilder {
  id: string;
  xs: number[];
  ys: number[];
  reserved: number[];
  indices: number[];
}

const MS_PER_MIN = 60_000;

function stats(xs: readonly number[], ys: readonly number[]): SeriesStats {
  const n = ys.length;
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
        builder = { id: heap.id, xs: [], ys: [], reserved: [], indices: [] };
        builders.set(heap.id, builder);
      }
      // The same id twice in one sample (two rows for one heap) is summed into one point.
      if (builder.indices[builder.indices.length - 1] === index) {
        const last = builder.ys.length - 1;
        builder.ys[last] = (builder.ys[last] ?? 0) + heap.committedKb;
        builder.reserved[last] = (builder.reserved[last] ?? 0) + (heap.reservedKb ?? Number.NaN);
        continue;
      }
      builder.xs.push(x);
      builder.ys.push(heap.committedKb);
      builder.reserved.push(heap.reservedKb ?? Number.NaN);
      builder.indices.push(index);
    }
    totalXs.push(x);
    totalYs.push(sample.totalCommittedKb ?? total);
  }

  const lastIndex = samples.length - 1;
  const total = stats(totalXs, totalYs);
  const lastSample = samples[lastIndex];
  const series: HeapTrendSeries[] = [];
  for (const builder of builders.values()) {
    const s = stats(builder.xs, builder.ys);
    const failed = failedConditions(s, rule);
    const first = builder.indices[0] ?? 0;
    const last = builder.indices[builder.indices.length - 1] ?? 0;
    let gaps = 0;
    for (let i = 1; i < builder.indices.length; i++) {
      if ((builder.indices[i] ?? 0) - (builder.indices[i - 1] ?? 0) > 1) gaps++;
    }
    let maxKb = 0;
    for (const y of builder.ys) if (y > maxKb) maxKb = y;
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
    if (builder.reserved.every((v) => !Number.isNaN(v))) {
      entry.reservedFirstKb = builder.reserved[0] ?? 0;
      entry.reservedLastKb = builder.reserved[builder.reserved.length - 1] ?? 0;
      entry.reservedSlopeKbPerMin = round(fitLine(builder.xs, builder.reserved).slope);
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
