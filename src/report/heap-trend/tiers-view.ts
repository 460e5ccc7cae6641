// What the numbers of a live .NET run measure when they come from the three tiers (issue 32), in
// words: which tier gave the sizes, the types and the retention chains, and what each cost.
import type { HeapTrendReport } from './types.js';

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
