// What the numbers of a live .NET run measure when they come from the three tiers (issue 32), in
// words: which tier gave the sizes, the types and the retention chains, and what each cost.
import type { HeapTrendReport, RetentionEntry, RetentionRoot } from './types.js';

type Tiers = NonNullable<HeapTrendReport['tiers']>;

export function tiersViewText(tiers: Tiers): string {
  const parts: string[] = [];
  if (tiers.series?.tier === 'counters') {
    parts.push(
      'Managed-heap view in tiers. Sizes: GC generation sizes (gen0/gen1/gen2, loh, poh) from the ' +
        "runtime's System.Runtime counters every sample, read over its diagnostics channel (the " +
        'target is never stopped for them).',
    );
  } else if (tiers.series !== undefined) {
    parts.push(
      "Managed-heap view in tiers. Sizes: the GC heap's total from each gcdump (the runtime's " +
        'counters were not available).',
    );
  }
  if (tiers.clrTypes !== undefined) {
    const every = tiers.clrTypes.every ?? 1;
    parts.push(
      `Types: counts and bytes per type from a \`dotnet-gcdump collect\` snapshot ` +
        `${every === 1 ? 'every sample' : `every ${every} samples (and the first and last)`}: ` +
        'one induced gen2 GC each, whose pause the sample records (the tool’s run time, an upper ' +
        'bound). Before .NET 11 the runtime streams the heap walk with lossy buffering, so a very ' +
        'large heap’s snapshot can miss objects (dotnet-gcdump warns so).',
    );
  }
  if (tiers.retention !== undefined) {
    parts.push(
      "Retention: once, at the end, from the last snapshot's object graph (every object of a " +
        'flagged type followed to its root, statics before stacks), beside the first snapshot.',
    );
  }
  return parts.join(' ');
}

/** One line per tier: what gave the sizes, the types and the retention chains. */
export function tierLines(tiers: Tiers | undefined): string[] {
  if (tiers === undefined) return [];
  const lines: string[] = [];
  const use = (name: string, t: Tiers['series']): void => {
    if (t === undefined) return;
    const every =
      t.every === undefined || t.every === 1 ? 'every sample' : `every ${t.every} samples`;
    lines.push(
      `${name}: ${t.tool}, ${t.file === undefined ? `${every} (${t.samples} samples)` : t.file}`,
    );
  };
  use('Sizes', tiers.series);
  use('Types', tiers.clrTypes);
  use('Retention', tiers.retention);
  return lines;
}

/** How a retention entry's objects were chosen, in words. */
export function retentionSourceText(entry: RetentionEntry): string {
  if (entry.from === 'gcdump-graph') {
    const unreached = entry.unreachable ?? 0;
    return (
      `${entry.objects ?? entry.sampled} object(s) in the last gcdump, every one followed to its root` +
      (unreached > 0 ? ` (${unreached} reached by no root: garbage not yet collected)` : '') +
      '.'
    );
  }
  return `${entry.sampled} object(s) sampled (\`dumpheap -mt ${entry.methodTable ?? '?'} -short\`, \`gcroot\` on each).`;
}

/** `344×`, or `344× (20 in the first gcdump)` when the first snapshot's count is known. */
export function rootCountText(root: RetentionRoot): string {
  return root.countFirst === undefined
    ? `${root.count}×`
    : `${root.count}× (${root.countFirst} in the first gcdump)`;
}
