// Memory by category from a Windows dump's MemoryInfoList (the VirtualQuery map of every region,
// minidumpapiset.h MINIDUMP_MEMORY_INFO), in VMMap's terms as far as a dump can tell them apart:
// - image: MEM_IMAGE regions (executables and DLLs);
// - mapped: MEM_MAPPED regions (mapped files and shareable sections: a dump does not say which);
// - heap: private regions whose allocation base is one of the process's heaps (PEB.ProcessHeaps
//   and PEB.ProcessHeap, or the signed heap headers when the PEB lists none, as under Wine:
//   processor/process-heaps.ts; a heap's later segments, allocated elsewhere, count as private data);
// - stack: the allocation holding each thread's stack (the thread list's stack range);
// - private data: every other private region (VirtualAlloc, the GC heap when no SOS ran, TEBs…).
// Committed bytes are the series value; reserved bytes ride along as `reservedKb`. Free space is
// no category. Pure.
import {
  MEM_COMMIT,
  MEM_IMAGE,
  MEM_MAPPED,
  MEM_RESERVE,
  type MemoryRegion,
} from '../../minidump/streams/memory-info-list.js';
import type { MemoryRegion as ListedRegion } from '../../engine/dialects/index.js';
import type { AddressSummaryRecord } from '../../parsers/address-summary.js';
import type { HeapTrendSampleHeap } from '../../report/heap-trend/types.js';

export type MemoryCategory = 'image' | 'mapped' | 'heap' | 'stack' | 'private data';

export const MEMORY_CATEGORIES: readonly MemoryCategory[] = [
  'image',
  'mapped',
  'heap',
  'stack',
  'private data',
];

export interface CategoryInputs {
  /** Heap base addresses (PEB.ProcessHeaps). */
  heaps: readonly bigint[];
  /** One address inside each thread's stack. */
  stackAddresses: readonly bigint[];
}

function categoryOf(
  region: MemoryRegion,
  heapBases: ReadonlySet<bigint>,
  stackBases: ReadonlySet<bigint>,
): MemoryCategory {
  if (region.type === MEM_IMAGE) return 'image';
  if (region.type === MEM_MAPPED) return 'mapped';
  if (heapBases.has(region.allocationBase)) return 'heap';
  if (stackBases.has(region.allocationBase)) return 'stack';
  return 'private data';
}

export function categorizeRegions(
  regions: readonly MemoryRegion[],
  inputs: CategoryInputs,
): HeapTrendSampleHeap[] {
  const heapBases = new Set(inputs.heaps);
  const stackBases = new Set<bigint>();
  for (const address of inputs.stackAddresses) {
    const holder = regions.find(
      (r) => address >= r.baseAddress && address < r.baseAddress + r.regionSize,
    );
    if (holder !== undefined) stackBases.add(holder.allocationBase);
  }
  const committed = new Map<MemoryCategory, number>();
  const reserved = new Map<MemoryCategory, number>();
  for (const region of regions) {
    if (region.state !== MEM_COMMIT && region.state !== MEM_RESERVE) continue;
    const category = categoryOf(region, heapBases, stackBases);
    const into = region.state === MEM_COMMIT ? committed : reserved;
    into.set(category, (into.get(category) ?? 0) + Number(region.regionSize));
  }
  return MEMORY_CATEGORIES.map((id) => ({
    id,
    committedKb: (committed.get(id) ?? 0) / 1024,
    reservedKb: ((committed.get(id) ?? 0) + (reserved.get(id) ?? 0)) / 1024,
  }));
}

/**
 * The categories a region listing taken from outside can tell apart (winedbg `info maps`: state,
 * type image/mapped/private, no heap list and no threads): image, mapped, private data. Heaps and
 * stacks are inside private data; the report's view says so.
 */
export function categorizeListedRegions(regions: readonly ListedRegion[]): HeapTrendSampleHeap[] {
  const committed = new Map<MemoryCategory, number>();
  const total = new Map<MemoryCategory, number>();
  for (const region of regions) {
    if (region.state !== 'commit' && region.state !== 'reserve') continue;
    const category: MemoryCategory =
      region.type === 'image' ? 'image' : region.type === 'mapped' ? 'mapped' : 'private data';
    total.set(category, (total.get(category) ?? 0) + region.size);
    if (region.state === 'commit') {
      committed.set(category, (committed.get(category) ?? 0) + region.size);
    }
  }
  return (['image', 'mapped', 'private data'] as const).map((id) => ({
    id,
    committedKb: (committed.get(id) ?? 0) / 1024,
    reservedKb: (total.get(id) ?? 0) / 1024,
  }));
}

// `!address -summary` usage names, current and old layouts (test/fixtures/transcripts/misc/
// address-summary-*.txt): Heap, Heap64, PageHeap, RegionUsageHeap…
const USAGE_CATEGORY: [RegExp, MemoryCategory | null][] = [
  [/^(?:Free|RegionUsageFree)$/i, null],
  [/^(?:Image|RegionUsageImage)$/i, 'image'],
  [/^(?:MappedFile|RegionUsageMappedFile)$/i, 'mapped'],
  [/^(?:(?:Page)?Heap(?:32|64)?|RegionUsage(?:Page)?Heap)$/i, 'heap'],
  [/^(?:Stack(?:32|64)?|RegionUsageStack)$/i, 'stack'],
];

/**
 * Categories from `!address -summary`'s usage table. Its sizes are busy sizes (reserved and
 * committed together, as ext.dll prints them), so they go in both `committedKb` and `reservedKb`;
 * `<unknown>` (VirtualAlloc'd memory, the GC heap), TEB, PEB and Other are private data.
 */
export function categoriesFromAddressSummary(record: AddressSummaryRecord): HeapTrendSampleHeap[] {
  const bytes = new Map<MemoryCategory, number>();
  for (const row of record.usage) {
    const hit = USAGE_CATEGORY.find(([re]) => re.test(row.name));
    const category = hit === undefined ? 'private data' : hit[1];
    if (category === null) continue;
    bytes.set(category, (bytes.get(category) ?? 0) + row.totalSize);
  }
  return MEMORY_CATEGORIES.map((id) => ({
    id,
    committedKb: (bytes.get(id) ?? 0) / 1024,
    reservedKb: (bytes.get(id) ?? 0) / 1024,
  }));
}
