// Groups winedbg `info maps` rows into regions a person can follow over time, and keeps each
// region's id stable from sample to sample.
//
// Grouping rule: a region is a maximal run of consecutive `private` rows (commit or reserve) in
// which each row starts on the byte after the previous one ends AND has the same allocation
// protection (the RWX column is mbi.AllocationProtect, identical for every row of one
// VirtualAlloc reservation). A free row, a mapped or image row, an address gap or a different
// allocation protection ends the region. So one reservation is one region: the rows of a heap
// segment (`commit` head, `reserve` tail) stay together. info maps does not print the allocation
// base, so two reservations that touch with the same protection merge into one region; that is
// what a growing Wine heap does (it reserves its next segment right after the last one, measured:
// 0x10a0000–0x149ffff then 0x14a0000–0x189ffff), and merging them keeps the heap as one series.
//
// Stable ids: a region's id is `region@<start>` the first time it is seen. In later samples a
// region that overlaps a known region's last address range inherits that id, so a region that
// grows downwards, or absorbs a neighbour, keeps its series.
import type { MemoryRegion } from '../../engine/dialects/types.js';
import { addressOf } from '../../parsers/hex-token.js';

export interface RegionGroup {
  start: bigint;
  /** Inclusive. */
  end: bigint;
  committedBytes: number;
  /** Committed plus reserved bytes of the region. */
  totalBytes: number;
  protect: string;
  rows: number;
}

export function groupPrivateRegions(regions: readonly MemoryRegion[]): RegionGroup[] {
  const groups: RegionGroup[] = [];
  let current: RegionGroup | undefined;
  for (const row of regions) {
    const isPrivate = row.type === 'private' && (row.state === 'commit' || row.state === 'reserve');
    if (!isPrivate) {
      current = undefined;
      continue;
    }
    const start = addressOf(row.start);
    const end = addressOf(row.end);
    const committed = row.state === 'commit' ? row.size : 0;
    if (current !== undefined && start === current.end + 1n && row.protect === current.protect) {
      current.end = end;
      current.committedBytes += committed;
      current.totalBytes += row.size;
      current.rows++;
      continue;
    }
    current = {
      start,
      end,
      committedBytes: committed,
      totalBytes: row.size,
      protect: row.protect,
      rows: 1,
    };
    groups.push(current);
  }
  return groups;
}

export function regionId(start: bigint): string {
  return `region@0x${start.toString(16)}`;
}

export interface IdentifiedRegion {
  id: string;
  group: RegionGroup;
}

/** Gives each sample's regions the ids of the regions they continue. */
export class RegionIdTracker {
  private readonly known = new Map<string, { start: bigint; end: bigint }>();

  assign(groups: readonly RegionGroup[]): IdentifiedRegion[] {
    const used = new Set<string>();
    const out: IdentifiedRegion[] = [];
    for (const group of groups) {
      let best: string | undefined;
      let bestOverlap = 0n;
      for (const [id, range] of this.known) {
        if (used.has(id)) continue;
        const lo = group.start > range.start ? group.start : range.start;
        const hi = group.end < range.end ? group.end : range.end;
        if (hi < lo) continue;
        const overlap = hi - lo + 1n;
        if (overlap > bestOverlap) {
          bestOverlap = overlap;
          best = id;
        }
      }
      let id = best ?? regionId(group.start);
      if (used.has(id)) {
        let n = 2;
        while (used.has(`${id}#${n}`)) n++;
        id = `${id}#${n}`;
      }
      used.add(id);
      out.push({ id, group });
    }
    for (const { id, group } of out) this.known.set(id, { start: group.start, end: group.end });
    return out;
  }
}
