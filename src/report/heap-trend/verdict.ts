// The one verdict of a heap-trend report: leak suspected, no leak suspected, or inconclusive. The
// headline of the CLI text, report.md and report.html, and the CLI's exit code, are all read from
// `report.verdict`, so they cannot disagree (before, "No leak suspects." headed reports whose
// per-type table flagged three types: the headline looked only at the main series, the per-GC-
// generation one, where gen2 grows in steps as the GC promotes in bursts and fails the
// "grew in 70 % of intervals" condition while the types it holds grow steadily).
//
// Every block of series a report holds is judged: the main series and each secondary block. The
// flagged series of all of them lead the report, in the order of SERIES_ORDER: a growing type
// names the leak better than the generation or category that holds it. A new tier (a counters
// series, a gcdump type series) plugs in by adding its kind to SERIES_ORDER and its block to
// seriesBlocks(). Pure.
import { formatCount, formatKb, formatRate } from './format.js';
import type {
  HeapTrendReport,
  HeapTrendSeries,
  HeapTrendSeriesKind,
  HeapTrendVerdict,
  RetentionGroup,
  VerdictSuspect,
} from './types.js';

/** Most telling first: a type names the leak; a generation or a region only says where it sits. */
export const SERIES_ORDER: readonly HeapTrendSeriesKind[] = [
  'clr-type',
  'heap',
  'category',
  'clr-generation',
  'committed-memory',
];

const NOUN: Record<HeapTrendSeriesKind, [string, string]> = {
  'clr-type': ['.NET type', '.NET types'],
  heap: ['heap', 'heaps'],
  category: ['memory category', 'memory categories'],
  'clr-generation': ['GC generation', 'GC generations'],
  'committed-memory': ['region', 'regions'],
};

/** Every block of series the report holds, each with its kind. */
export function seriesBlocks(
  report: Pick<HeapTrendReport, 'series' | 'seriesKind' | 'source'> &
    Partial<Pick<HeapTrendReport, 'clrTypes' | 'categories' | 'clrGenerations'>>,
): { kind: HeapTrendSeriesKind; series: readonly HeapTrendSeries[] }[] {
  const blocks = [{ kind: report.seriesKind ?? report.source, series: report.series }];
  for (const block of [report.clrTypes, report.categories, report.clrGenerations]) {
    if (block !== undefined) blocks.push({ kind: block.kind, series: block.series });
  }
  return blocks;
}

function suspectOf(kind: HeapTrendSeriesKind, s: HeapTrendSeries): VerdictSuspect {
  return {
    kind,
    id: s.id,
    growthKb: s.growthKb,
    slopeKbPerMin: s.slopeKbPerMin,
    r2: s.r2,
    ...(s.countFirst === undefined ? {} : { countFirst: s.countFirst }),
    ...(s.countLast === undefined ? {} : { countLast: s.countLast }),
  };
}

/** `System.Byte[] grew 150 MB (+130 KB/min, R² 0.999, 1,024 → 21,760 objects)`. */
export function suspectText(s: VerdictSuspect): string {
  const objects =
    s.countFirst === undefined || s.countLast === undefined
      ? ''
      : `, ${formatCount(s.countFirst)} → ${formatCount(s.countLast)} objects`;
  return `${s.id} grew ${formatKb(s.growthKb)} (${formatRate(s.slopeKbPerMin)}, R² ${s.r2}${objects})`;
}

/**
 * The verdict of a report whose series are built. `usableSamples`: the samples the series were
 * built from; `minSamples`: the rule's least number of samples.
 */
export function verdictOf(
  report: Pick<HeapTrendReport, 'series' | 'seriesKind' | 'source' | 'ruleParameters'> &
    Partial<Pick<HeapTrendReport, 'clrTypes' | 'categories' | 'clrGenerations'>>,
  usableSamples: number,
): HeapTrendVerdict {
  const suspects: VerdictSuspect[] = [];
  const blocks = seriesBlocks(report);
  for (const kind of SERIES_ORDER) {
    for (const block of blocks) {
      if (block.kind !== kind) continue;
      for (const s of block.series)
        if (s.suspect && s.id !== 'Free') suspects.push(suspectOf(kind, s));
    }
  }
  const minSamples = report.ruleParameters.minSamples;
  if (suspects.length > 0) {
    const [lead] = suspects;
    const sameKind = suspects.filter((s) => s.kind === lead?.kind);
    const others = suspects.length - sameKind.length;
    const nouns = NOUN[lead?.kind ?? 'heap'];
    const names = sameKind.slice(1, 4).map((s) => s.id);
    const more = sameKind.length - 1 - names.length;
    const also =
      names.length === 0
        ? ''
        : `; also flagged: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    const flagged = `${sameKind.length} ${sameKind.length === 1 ? nouns[0] : nouns[1]} flagged`;
    return {
      kind: 'leak',
      headline:
        `Leak suspected: ${lead === undefined ? '' : suspectText(lead)}${also} ` +
        `(${flagged}${others > 0 ? `, and ${others} other series` : ''}).`,
      suspects,
    };
  }
  if (usableSamples < minSamples) {
    return {
      kind: 'inconclusive',
      headline: `Inconclusive: ${usableSamples} usable sample(s); the rule needs at least ${minSamples}.`,
      suspects,
    };
  }
  const judged = blocks
    .map((b) => `${b.series.length} ${b.series.length === 1 ? NOUN[b.kind][0] : NOUN[b.kind][1]}`)
    .join(', ');
  return {
    kind: 'no-leak',
    headline: `No leak suspected: none of ${judged} met the rule over ${usableSamples} samples.`,
    suspects,
  };
}

/** Flagged series listed under the headline, at most this many (the tables hold the rest). */
const LISTED_SUSPECTS = 10;

/**
 * The verdict as the reports open with it: the headline, then one line per flagged series
 * (`.NET type: System.Byte[] grew 150 MB (+130 KB/min, R² 0.999, …)`). Plain text; the HTML
 * escapes each line.
 */
export function verdictLines(
  verdict: HeapTrendVerdict,
  groups: readonly RetentionGroup[] = [],
): { headline: string; items: string[]; holders: string[] } {
  const items = verdict.suspects
    .slice(0, LISTED_SUSPECTS)
    .map((s) => `${NOUN[s.kind][0]}: ${suspectText(s)}`);
  const rest = verdict.suspects.length - items.length;
  if (rest > 0) items.push(`and ${rest} more flagged series (see the tables)`);
  return {
    headline: verdict.headline,
    items: verdict.suspects.length > 1 ? items : [],
    // What holds them, when retention traced the flagged types (retention-groups.ts).
    holders: groups.map((g) => g.text),
  };
}
