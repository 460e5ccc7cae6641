// Memory by category, in VMMap's terms as far as each source can tell them apart:
// - image: MEM_IMAGE regions (executables and DLLs);
// - mapped (VMMap's "Mapped File"): MEM_MAPPED regions backed by a file;
// - shareable: MEM_MAPPED regions backed by the paging file (sections, shared memory, NLS tables);
// - heap: the allocations the native heaps are made of: each heap's base, and its later sub-heaps
//   (segments) and large blocks where processor/heap-walk.ts walked it (the heaps found by
//   processor/process-heaps.ts: PEB.ProcessHeaps and PEB.ProcessHeap, or the signed heap headers
//   when the PEB lists none, as under Wine);
// - managed heap: the GC's segments or regions, when SOS or dotnet-dump listed them (`eeheap -gc`);
// - stack: the allocation holding each thread's stack;
// - private data: every other private region (VirtualAlloc, TEBs, the GC heap when no SOS ran…);
// - other: what `!address -summary` calls Other and is not shareable.
// Every categorizer returns only the categories its source can tell apart: a dump's MemoryInfoList
// and winedbg's `info maps` carry no file names, so their MEM_MAPPED regions stay `mapped` (file
// or section: they cannot say), and no `shareable` row is made up. Free, reserved and committed
// totals of the whole address space ride along (`MemoryTotals`). Pure.
import {
  MEM_COMMIT,
  MEM_FREE,
  MEM_IMAGE,
  MEM_MAPPED,
  MEM_RESERVE,
  type MemoryRegion,
} from '../../minidump/streams/memory-info-list.js';
import type { MemoryRegion as ListedRegion } from '../../engine/dialects/index.js';
import type { AddressSummaryRecord, AddressSummaryRow } from '../../parsers/address-summary.js';
import type { HeapTrendSampleHeap, MemoryTotals } from '../../report/heap-trend/types.js';

export type MemoryCategory =
  'image' | 'mapped' | 'shareable' | 'heap' | 'managed heap' | 'stack' | 'private data' | 'other';

/** Every category, in the order reports list them. */
export const MEMORY_CATEGORIES: readonly MemoryCategory[] = [
  'image',
  'mapped',
  'shareable',
  'heap',
  'managed heap',
  'stack',
  'private data',
  'other',
];

export interface CategoryInputs {
  /**
   * Allocation bases of the heaps: each heap's base (PEB.ProcessHeaps), and every sub-heap,
   * segment and large block of the heaps that were walked (workflows/heap-trend/native-heaps.ts).
   */
  heaps: readonly bigint[];
  /** One address inside each thread's stack. */
  stackAddresses: readonly bigint[];
  /**
   * One address inside each GC segment or region (`eeheap -gc`'s `begin` column), when SOS or
   * dotnet-dump read the same dump: the allocations holding them are the managed heap.
   */
  managedAddresses?: readonly bigint[];
}

/** What the categories of one sample are, and the address-space totals beside them. */
export interface CategoryReading {
  categories: HeapTrendSampleHeap[];
  totals: MemoryTotals;
}

function holders(regions: readonly MemoryRegion[], addresses: readonly bigint[]): Set<bigint> {
  const bases = new Set<bigint>();
  for (const address of addresses) {
    const holder = regions.find(
      (r) => address >= r.baseAddress && address < r.baseAddress + r.regionSize,
    );
    if (holder !== undefined && holder.state !== MEM_FREE) bases.add(holder.allocationBase);
  }
  return bases;
}

function rows(
  ids: readonly MemoryCategory[],
  committed: ReadonlyMap<MemoryCategory, number>,
  total: ReadonlyMap<MemoryCategory, number>,
): HeapTrendSampleHeap[] {
  return ids.map((id) => ({
    id,
    committedKb: (committed.get(id) ?? 0) / 1024,
    reservedKb: (total.get(id) ?? 0) / 1024,
  }));
}

function add<K>(map: Map<K, number>, key: K, bytes: number): void {
  map.set(key, (map.get(key) ?? 0) + bytes);
}

/** A full dump's MemoryInfoList (minidumpapiset.h MINIDUMP_MEMORY_INFO) by category. */
export function categorizeRegions(
  regions: readonly MemoryRegion[],
  inputs: CategoryInputs,
): CategoryReading {
  const heapBases = new Set(inputs.heaps);
  const stackBases = holders(regions, inputs.stackAddresses);
  const managed = inputs.managedAddresses;
  const managedBases = managed === undefined ? new Set<bigint>() : holders(regions, managed);
  const committed = new Map<MemoryCategory, number>();
  const total = new Map<MemoryCategory, number>();
  const totals = { committed: 0, reserved: 0, free: 0 };
  for (const region of regions) {
    const size = Number(region.regionSize);
    if (region.state === MEM_FREE) totals.free += size;
    if (region.state !== MEM_COMMIT && region.state !== MEM_RESERVE) continue;
    const category: MemoryCategory =
      region.type === MEM_IMAGE
        ? 'image'
        : region.type === MEM_MAPPED
          ? 'mapped'
          : heapBases.has(region.allocationBase)
            ? 'heap'
            : managedBases.has(region.allocationBase)
              ? 'managed heap'
              : stackBases.has(region.allocationBase)
                ? 'stack'
                : 'private data';
    add(total, category, size);
    if (region.state === MEM_COMMIT) {
      add(committed, category, size);
      totals.committed += size;
    } else totals.reserved += size;
  }
  const ids = MEMORY_CATEGORIES.filter(
    (id) =>
      id !== 'shareable' && id !== 'other' && (id !== 'managed heap' || managed !== undefined),
  );
  return {
    categories: rows(ids, committed, total),
    totals: {
      committedKb: totals.committed / 1024,
      reservedKb: totals.reserved / 1024,
      freeKb: totals.free / 1024,
    },
  };
}

/**
 * The categories a region listing taken from outside can tell apart (winedbg `info maps`: state,
 * type image/mapped/private, no heap list, no threads, no file names): image, mapped, private data.
 * Heaps and stacks are inside private data; the report's view says so.
 */
export function categorizeListedRegions(regions: readonly ListedRegion[]): CategoryReading {
  const committed = new Map<MemoryCategory, number>();
  const total = new Map<MemoryCategory, number>();
  const totals = { committed: 0, reserved: 0, free: 0 };
  for (const region of regions) {
    if (region.state === 'free') totals.free += region.size;
    if (region.state !== 'commit' && region.state !== 'reserve') continue;
    const category: MemoryCategory =
      region.type === 'image' ? 'image' : region.type === 'mapped' ? 'mapped' : 'private data';
    add(total, category, region.size);
    if (region.state === 'commit') {
      add(committed, category, region.size);
      totals.committed += region.size;
    } else totals.reserved += region.size;
  }
  return {
    categories: rows(['image', 'mapped', 'private data'], committed, total),
    totals: {
      committedKb: totals.committed / 1024,
      reservedKb: totals.reserved / 1024,
      freeKb: totals.free / 1024,
    },
  };
}

// `!address -summary` usage names, current and old layouts (test/fixtures/transcripts/misc/
// address-summary-*.txt): Heap, Heap64, PageHeap, RegionUsageHeap…
const USAGE_CATEGORY: [RegExp, MemoryCategory | null][] = [
  [/^(?:Free|RegionUsageFree)$/i, null],
  [/^(?:Image|RegionUsageImage)$/i, 'image'],
  [/^(?:MappedFile|RegionUsageMappedFile)$/i, 'mapped'],
  [/^(?:(?:Page)?Heap(?:32|64)?|RegionUsage(?:Page)?Heap)$/i, 'heap'],
  [/^(?:Stack(?:32|64)?|RegionUsageStack)$/i, 'stack'],
  [/^Other$/i, 'other'],
];

function sectionRow(
  record: AddressSummaryRecord,
  title: RegExp,
  name: string,
): AddressSummaryRow | undefined {
  return record.otherSections
    ?.find((s) => title.test(s.title))
    ?.rows.find((r) => r.name.toUpperCase() === name);
}

function take(bytes: Map<MemoryCategory, number>, from: MemoryCategory, wanted: number): number {
  const taken = Math.min(bytes.get(from) ?? 0, Math.max(0, wanted));
  bytes.set(from, (bytes.get(from) ?? 0) - taken);
  return taken;
}

export interface AddressSummaryExtras {
  /** The GC's committed bytes (`eeheap -gc` in the same attach): moved out of private data. */
  managedBytes?: number;
}

/**
 * Categories from `!address -summary`'s usage table. Its sizes are busy sizes (reserved and
 * committed together, as ext.dll prints them), so they go in both `committedKb` and `reservedKb`;
 * `<unknown>` (VirtualAlloc'd memory, the GC heap), TEB, PEB and the old layout's other
 * RegionUsage rows are private data.
 * - shareable, when the Type section is printed: MEM_MAPPED bytes that are not MappedFile. The usage
 *   table files them under Other (ext.dll's Other: NLS tables, shared memory, activation contexts,
 *   all sections) and `<unknown>`; they are taken from Other first, then from private data, so the
 *   categories still add up to the busy total;
 * - managed heap, when SOS ran in the same attach: the GC's committed bytes, taken from private data
 *   (where `<unknown>` put them); what the GC only reserved stays there, as the table cannot tell it.
 */
export function categoriesFromAddressSummary(
  record: AddressSummaryRecord,
  extras: AddressSummaryExtras = {},
): CategoryReading {
  const bytes = new Map<MemoryCategory, number>();
  let free: number | undefined;
  for (const row of record.usage) {
    const hit = USAGE_CATEGORY.find(([re]) => re.test(row.name));
    const category = hit === undefined ? 'private data' : hit[1];
    if (category === null) free = (free ?? 0) + row.totalSize;
    else add(bytes, category, row.totalSize);
  }
  const ids: MemoryCategory[] = MEMORY_CATEGORIES.filter(
    (id) => id !== 'shareable' && id !== 'managed heap',
  );
  const mapped = sectionRow(record, /^Type/i, 'MEM_MAPPED');
  if (mapped !== undefined) {
    let wanted = Math.max(0, mapped.totalSize - (bytes.get('mapped') ?? 0));
    const fromOther = take(bytes, 'other', wanted);
    wanted -= fromOther;
    bytes.set('shareable', fromOther + take(bytes, 'private data', wanted));
    ids.splice(ids.indexOf('mapped') + 1, 0, 'shareable');
  }
  if (extras.managedBytes !== undefined) {
    bytes.set('managed heap', take(bytes, 'private data', extras.managedBytes));
    ids.splice(ids.indexOf('heap') + 1, 0, 'managed heap');
  }
  const committed = sectionRow(record, /^State/i, 'MEM_COMMIT')?.totalSize;
  const reserved = sectionRow(record, /^State/i, 'MEM_RESERVE')?.totalSize;
  const freeBytes = free ?? sectionRow(record, /^State/i, 'MEM_FREE')?.totalSize;
  return {
    categories: rows(ids, bytes, bytes),
    totals: {
      ...(committed === undefined ? {} : { committedKb: committed / 1024 }),
      ...(reserved === undefined ? {} : { reservedKb: reserved / 1024 }),
      ...(freeBytes === undefined ? {} : { freeKb: freeBytes / 1024 }),
    },
  };
}
