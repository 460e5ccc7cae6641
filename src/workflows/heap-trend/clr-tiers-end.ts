// What the live .NET tiers add once the sampling is over: the retention chains of the flagged
// types, read from the last gcdump's object graph (no more pauses: the snapshot is already on
// disk), with how many objects each chain held in the first snapshot; and the report's `tiers`,
// which says which tier gave each series.
import {
  pathParents,
  retentionPaths,
  type GraphRetention,
} from '../../engine/dialects/dotnet-gcdump/retention-paths.js';
import { secondaryAnalysis } from '../../report/heap-trend/report.js';
import type {
  HeapTrendReport,
  HeapTrendSample,
  RetentionEntry,
  SuspectRule,
} from '../../report/heap-trend/types.js';
import type { Snapshot } from './clr-tiers-sampler.js';

/** The flagged types, most suspicious first, at most `limit` (`Free` is the GC's, not a type). */
export function flaggedTypes(
  samples: readonly HeapTrendSample[],
  limit: number,
  rule?: Partial<SuspectRule>,
): string[] {
  const types = secondaryAnalysis(samples, (s) => s.clrTypes, 'clr-type', {
    ...(rule === undefined ? {} : { rule }),
    limit,
  });
  return (types?.series ?? []).filter((s) => s.suspect && s.id !== 'Free').map((s) => s.id);
}

function entryOf(last: GraphRetention, first: GraphRetention | undefined): RetentionEntry {
  const before = new Map(
    (first?.chains ?? []).map((c) => [`${c.root}\u0000${c.chain.join('\u0000')}`, c.count]),
  );
  return {
    type: last.type,
    sampled: last.objects,
    roots: last.chains.map((c) => {
      const countFirst =
        first === undefined
          ? undefined
          : (before.get(`${c.root}\u0000${c.chain.join('\u0000')}`) ?? 0);
      // The holder: the object nearest the root that is not the runtime's own Object[] (for a
      // static, the object in the field). The runtime named the static itself: no SOS guess here.
      const holder = [...c.chain]
        .reverse()
        .find((t) => t !== 'System.Object[]' && !t.startsWith('…'));
      return {
        ...c,
        ...(countFirst === undefined ? {} : { countFirst }),
        ...(holder === undefined ? {} : { holder }),
      };
    }),
    from: 'gcdump-graph',
    objects: last.objects,
    unreachable: last.unreachable,
    ...(last.objects === 0 ? { skipped: 'no object of the type in the last gcdump' } : {}),
  };
}

/** Retention chains of `types` from the last snapshot (and the first, for the counts before). */
export function graphRetention(
  types: readonly string[],
  snapshots: { first?: Snapshot; last?: Snapshot },
): RetentionEntry[] {
  const last = snapshots.last ?? snapshots.first;
  if (last === undefined || types.length === 0) return [];
  const now = retentionPaths(last.dump, types, { parents: pathParents(last.dump) });
  const first =
    snapshots.first !== undefined && snapshots.first !== last ? snapshots.first : undefined;
  // The first snapshot's chains are all counted (not cut to the top few), so a chain that is new
  // since then reads 0 before rather than missing.
  const then =
    first === undefined
      ? undefined
      : retentionPaths(first.dump, types, { maxChains: Number.MAX_SAFE_INTEGER });
  return now.map((entry, i) => entryOf(entry, then?.[i]));
}

/** The report's `tiers`: which tier gave the main series, the types and the retention chains. */
export function tiersOf(
  samples: readonly HeapTrendSample[],
  typesEvery: number,
  retentionFile?: string,
): NonNullable<HeapTrendReport['tiers']> {
  const sizes = samples.filter((s) => s.tiers?.heaps !== undefined);
  const counters = sizes.filter((s) => s.tiers?.heaps === 'counters').length;
  const types = samples.filter((s) => s.tiers?.clrTypes === 'gcdump').length;
  const tiers: NonNullable<HeapTrendReport['tiers']> = {};
  if (sizes.length > 0) {
    tiers.series =
      counters > 0
        ? { tier: 'counters', tool: 'System.Runtime counters', samples: counters, every: 1 }
        : { tier: 'gcdump', tool: 'dotnet-gcdump collect (heap total)', samples: sizes.length };
  }
  if (types > 0) {
    tiers.clrTypes = {
      tier: 'gcdump',
      tool: 'dotnet-gcdump collect',
      samples: types,
      every: counters > 0 ? typesEvery : 1,
    };
  }
  if (retentionFile !== undefined) {
    tiers.retention = {
      tier: 'gcdump',
      tool: 'gcdump object graph',
      samples: 1,
      file: retentionFile,
    };
  }
  return tiers;
}
