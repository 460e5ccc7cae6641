// Co-growing types grouped by what holds them: when the most common chain of several flagged types
// ends in the same holder under the same root, they are one leak seen from several types
// ("System.Byte[] and CdbHarness.Targets.SessionState grew by 8,192 objects each, held by
// Dictionary<…> (static variable: …: SOS's guess, not checked)"). Pure.
import { formatCount, formatKb } from './format.js';
import { GUESS, staticNoteText } from './retention-chains.js';
import type { HeapTrendSecondary, RetentionEntry, RetentionGroup } from './types.js';

function holderText(group: Omit<RetentionGroup, 'text'>): string {
  // static field Live (a System.Collections.Generic.Dictionary<…>)   (a gcdump graph's root)
  if (group.staticLabel === undefined)
    return `${group.holder} (${group.root.replace(/ \(a .*\)$/, '')})`;
  if (group.labelChecked === true && group.staticField !== undefined) {
    const check = { field: group.staticField, agrees: group.labelAgrees === true };
    return `${group.holder} (${staticNoteText(group.staticLabel, check)})`;
  }
  return `${group.holder} (${group.staticLabel}: ${GUESS})`;
}

function growthText(types: RetentionGroup['types']): string {
  const counts = types.map((t) => t.countGrowth);
  const [first] = counts;
  if (first !== undefined && counts.every((c) => c === first)) {
    const each = types.length > 1 ? ' each' : '';
    return `grew by ${formatCount(first)} object${first === 1 ? '' : 's'}${each}`;
  }
  return `grew (${types
    .map((t) =>
      t.countGrowth === undefined
        ? `${t.type} ${formatKb(t.growthKb ?? 0)}`
        : `${t.type} +${formatCount(t.countGrowth)} objects`,
    )
    .join(', ')})`;
}

export function retentionGroups(
  retention: readonly RetentionEntry[],
  types: HeapTrendSecondary | undefined,
): RetentionGroup[] {
  const groups = new Map<string, Omit<RetentionGroup, 'text'>>();
  for (const entry of retention) {
    const top = entry.roots[0];
    if (top?.holder === undefined) continue;
    const key = `${top.holder}\u0000${top.staticField ?? top.staticLabel ?? ''}\u0000${top.root}`;
    const series = types?.series.find((s) => s.id === entry.type);
    const countGrowth =
      series?.countFirst === undefined || series.countLast === undefined
        ? undefined
        : series.countLast - series.countFirst;
    const member = {
      type: entry.type,
      ...(countGrowth === undefined ? {} : { countGrowth }),
      ...(series === undefined ? {} : { growthKb: series.growthKb }),
    };
    const group = groups.get(key);
    if (group !== undefined) group.types.push(member);
    else {
      groups.set(key, {
        holder: top.holder,
        ...(top.staticLabel === undefined ? {} : { staticLabel: top.staticLabel }),
        ...(top.labelChecked === undefined ? {} : { labelChecked: top.labelChecked }),
        ...(top.staticField === undefined ? {} : { staticField: top.staticField }),
        ...(top.labelAgrees === undefined ? {} : { labelAgrees: top.labelAgrees }),
        root: top.root,
        types: [member],
      });
    }
  }
  return [...groups.values()].map((g) => {
    const names = g.types.map((t) => t.type);
    const list =
      names.length <= 1
        ? (names[0] ?? '')
        : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`;
    return { ...g, text: `${list} ${growthText(g.types)}, held by ${holderText(g)}.` };
  });
}
