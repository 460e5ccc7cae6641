// The leak-suspect rule. A heap is flagged only when its growth is sustained: steep enough, steady
// enough (a straight line explains it), in most intervals, and large enough in total. Each
// condition alone misfires: a single big allocation gives a high slope with one growing interval;
// a heap that breathes up and down has growth in half the intervals; a slow 4 KB creep can look
// perfectly linear. Together they describe a leak.
import { formatNumber } from './format.js';
import type { SeriesStats, SuspectRule } from './types.js';

export const DEFAULT_SUSPECT_RULE: SuspectRule = {
  minSamples: 3,
  minSlopeKbPerMin: 1,
  minR2: 0.8,
  minGrowthShare: 0.7,
  minGrowthKb: 256,
};

function fmt(value: number): string {
  return formatNumber(value, 2);
}

/** The rule in words, as the report prints it. */
export function ruleText(
  rule: SuspectRule,
  unit: 'heap' | 'region' | 'type' | 'category' | 'generation' = 'heap',
): string {
  return (
    `A ${unit} is a leak suspect when, over at least ${rule.minSamples} samples, its ` +
    `${unit === 'type' ? 'total object size' : 'committed size'} grows faster than ${fmt(rule.minSlopeKbPerMin)} KB/min (least-squares slope) AND a ` +
    `straight line explains the growth (R² ≥ ${fmt(rule.minR2)}) AND it grew in at least ` +
    `${fmt(rule.minGrowthShare * 100)} % of the intervals between its samples AND it grew by at ` +
    `least ${fmt(rule.minGrowthKb)} KB in total (last minus first sample).`
  );
}

/** The conditions the series fails; empty means it is a suspect. */
export function failedConditions(stats: SeriesStats, rule: SuspectRule): string[] {
  const failed: string[] = [];
  if (stats.samples < rule.minSamples)
    failed.push(`only ${stats.samples} sample(s) (needs ${rule.minSamples})`);
  if (!(stats.slopeKbPerMin > rule.minSlopeKbPerMin))
    failed.push(
      `slope ${fmt(stats.slopeKbPerMin)} KB/min is not above ${fmt(rule.minSlopeKbPerMin)}`,
    );
  if (!(stats.r2 >= rule.minR2)) failed.push(`R² ${fmt(stats.r2)} is below ${fmt(rule.minR2)}`);
  if (!(stats.growthShare >= rule.minGrowthShare))
    failed.push(
      `grew in ${fmt(stats.growthShare * 100)} % of intervals (needs ${fmt(rule.minGrowthShare * 100)} %)`,
    );
  if (!(stats.growthKb >= rule.minGrowthKb))
    failed.push(`total growth ${fmt(stats.growthKb)} KB is below ${fmt(rule.minGrowthKb)} KB`);
  return failed;
}
