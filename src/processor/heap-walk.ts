// Each process heap of a full dump, walked to every allocation it is made of: its base, its later
// sub-heaps (segments) and its large blocks, with the committed and reserved bytes of each from
// the dump's MemoryInfoList. What `!heap -s -h 0` lists per heap (base, reserved, committed),
// read with no debugger, so that a series of full dumps gives a series per heap.
//
// Layouts, told apart by the bytes:
// - Wine 8 (what runs here: Debian 12's wine 8.0), dlls/ntdll/heap.c at the wine-8.0 tag
//   (https://gitlab.winehq.org/wine/wine/-/blob/wine-8.0/dlls/ntdll/heap.c): `struct heap` keeps
//   the NT signature 0xffeeffee at +0x10 (win64) for compatibility, then after `force_flags`
//   (+0x74) its own fields: `entry` (the process's heap list, +0x78), `subheap_list` (+0x88),
//   `large_list` (+0x98), `grow_size`, `min_size`, and `magic` 'HEAP' (0x50414548, +0xb8). Every
//   sub-heap is its own virtual allocation starting with a SUBHEAP header whose `entry` is at
//   +0x18 and whose `user_value` (+0x28) points back at its heap; the first one sits inside the
//   heap header. Every large block (past about 1 MB) is its own virtual allocation with an
//   ARENA_LARGE header on `large_list`. These offsets were checked against Debugger Engine
//   `.dump /ma` dumps of test/targets/leak.c under that Wine (test/dbgeng/heap-walk.dbgeng.ts).
// - Windows' NT heap (_HEAP, SegmentSignature 0xffeeffee at +0x10 on x64) and segment heap
//   (0xddeeddee): recognized and named, not walked: no real Windows full dump holding a heap was
//   at hand to check a _HEAP_SEGMENT list walk against, so such a heap counts as the allocation
//   holding its base (the answer before this walker) and the walk says so.
// Sizes come from the MemoryInfoList (the allocation each list entry lies in), not from the
// headers' size fields, so a header that lies cannot inflate a heap. Lists are followed with
// their back links checked, every entry visited once and a bounded number of entries in all:
// a hostile dump (a list that loops, a count of billions) ends the walk of that heap with a note.
// Pure: reads only through the `readMemory` it is given.
import { MEM_COMMIT, MEM_FREE, type MemoryRegion } from '../minidump/streams/memory-info-list.js';
import { HEAP_SIGNATURE, MAX_HEAPS } from './process-heaps.js';

export interface HeapMemory {
  readMemory(address: bigint, length: number): Promise<Buffer | null>;
}

export type HeapLayout = 'wine' | 'nt' | 'segment-heap' | 'unknown';

/** One allocation a heap is made of. */
export interface HeapPart {
  kind: 'base' | 'sub-heap' | 'large-block';
  allocationBase: bigint;
  committedBytes: number;
  /** Committed and reserved together (the allocation's whole size), as `!heap -s` counts it. */
  reservedBytes: number;
}

export interface WalkedHeap {
  base: bigint;
  layout: HeapLayout;
  /**
   * `complete`: every list was followed back to its head; `partial`: a list broke (the parts
   * before the break are kept); `base-only`: not walked, the allocation holding the base only.
   */
  walk: 'complete' | 'partial' | 'base-only';
  parts: HeapPart[];
  subHeaps: number;
  largeBlocks: number;
  committedBytes: number;
  reservedBytes: number;
  /** Why the walk stopped or did not start. */
  note?: string;
}

export interface HeapWalk {
  heaps: WalkedHeap[];
  /** Heaps found on a walked heap's process list that the caller did not name. */
  discovered: bigint[];
  /** List entries read in all (the bound is `maxEntries`). */
  entriesRead: number;
}

export interface HeapWalkLimits {
  /** Heaps walked at most (default 4096, as PEB.NumberOfHeaps is read). */
  maxHeaps?: number;
  /** List entries read over the whole walk at most (default 200,000: 3.2 MB of reads). */
  maxEntries?: number;
}

// Wine 8.0 win64 offsets (see the header comment).
const WINE64 = {
  signature: 0x10,
  heapList: 0x78,
  subheapList: 0x88,
  largeList: 0x98,
  magic: 0xb8,
  subheapEntry: 0x18,
  subheapOwner: 0x28,
} as const;
const SEGMENT_HEAP_SIGNATURE = 0xddeeddee;
const WINE_HEAP_MAGIC = 0x50414548; // 'HEAP'
const DEFAULT_MAX_ENTRIES = 200_000;

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** The allocations of the address space, and which one holds an address. */
class Allocations {
  readonly #sorted: MemoryRegion[];
  readonly #sizes = new Map<bigint, { committed: number; reserved: number }>();

  constructor(regions: readonly MemoryRegion[]) {
    this.#sorted = regions
      .filter((r) => r.state !== MEM_FREE)
      .sort((a, b) => (a.baseAddress < b.baseAddress ? -1 : a.baseAddress > b.baseAddress ? 1 : 0));
    for (const r of this.#sorted) {
      const size = this.#sizes.get(r.allocationBase) ?? { committed: 0, reserved: 0 };
      size.reserved += Number(r.regionSize);
      if (r.state === MEM_COMMIT) size.committed += Number(r.regionSize);
      this.#sizes.set(r.allocationBase, size);
    }
  }

  /** The allocation base of the region holding `address`, or null (free or unlisted). */
  holding(address: bigint): bigint | null {
    let lo = 0;
    let hi = this.#sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.#sorted[mid];
      if (r === undefined) break;
      if (address < r.baseAddress) hi = mid - 1;
      else if (address >= r.baseAddress + r.regionSize) lo = mid + 1;
      else return r.allocationBase;
    }
    return null;
  }

  part(kind: HeapPart['kind'], allocationBase: bigint): HeapPart {
    const size = this.#sizes.get(allocationBase) ?? { committed: 0, reserved: 0 };
    return {
      kind,
      allocationBase,
      committedBytes: size.committed,
      reservedBytes: size.reserved,
    };
  }
}

/** Shared across the walk: how many list entries may still be read. */
interface Budget {
  left: number;
  read: number;
}

type ListWalk = { entries: bigint[]; broken?: string };

/**
 * The entries of a circular doubly-linked `struct list` (wine/list.h: `next`, `prev`) from its
 * head, each back link checked, each entry once, within the budget.
 */
async function walkList(memory: HeapMemory, head: bigint, budget: Budget): Promise<ListWalk> {
  const entries: bigint[] = [];
  const seen = new Set<bigint>([head]);
  const headBytes = await memory.readMemory(head, 16);
  if (headBytes === null || headBytes.length < 16) {
    return { entries, broken: `list head ${hex(head)} is not in the dump` };
  }
  let prev = head;
  let node = headBytes.readBigUInt64LE(0);
  while (node !== head) {
    if (seen.has(node)) {
      return { entries, broken: `the list at ${hex(head)} loops back to ${hex(node)}` };
    }
    if (budget.left <= 0) {
      return { entries, broken: `stopped after ${budget.read} list entries (the walk's bound)` };
    }
    budget.left--;
    budget.read++;
    const bytes = await memory.readMemory(node, 16);
    if (bytes === null || bytes.length < 16) {
      return { entries, broken: `list entry ${hex(node)} is not in the dump` };
    }
    const back = bytes.readBigUInt64LE(8);
    if (back !== prev) {
      return {
        entries,
        broken: `list entry ${hex(node)} links back to ${hex(back)}, not ${hex(prev)}`,
      };
    }
    seen.add(node);
    entries.push(node);
    prev = node;
    node = bytes.readBigUInt64LE(0);
  }
  if (headBytes.readBigUInt64LE(8) !== prev) {
    return { entries, broken: `the list at ${hex(head)} does not end where its head says` };
  }
  return { entries };
}

async function layoutOf(memory: HeapMemory, base: bigint): Promise<HeapLayout> {
  const header = await memory.readMemory(base, WINE64.magic + 4);
  if (header === null || header.length < WINE64.signature + 4) return 'unknown';
  const signature = header.readUInt32LE(WINE64.signature);
  if (signature === SEGMENT_HEAP_SIGNATURE) return 'segment-heap';
  if (signature !== HEAP_SIGNATURE) return 'unknown';
  if (header.length >= WINE64.magic + 4 && header.readUInt32LE(WINE64.magic) === WINE_HEAP_MAGIC) {
    return 'wine';
  }
  return 'nt';
}

const NOT_WALKED: Record<Exclude<HeapLayout, 'wine'>, string> = {
  nt: 'a Windows NT heap (_HEAP): its segment list is not walked (no real Windows dump was at hand to check the walk against); counted as the allocation holding its base',
  'segment-heap':
    'a Windows segment heap (signature 0xddeeddee): not walked; counted as the allocation holding its base',
  unknown:
    'no heap header recognized at its base (not captured, or neither Wine 8 nor Windows); counted as the allocation holding its base',
};

function totals(heap: Omit<WalkedHeap, 'committedBytes' | 'reservedBytes'>): WalkedHeap {
  return {
    ...heap,
    committedBytes: heap.parts.reduce((n, p) => n + p.committedBytes, 0),
    reservedBytes: heap.parts.reduce((n, p) => n + p.reservedBytes, 0),
  };
}

async function walkWineHeap(
  memory: HeapMemory,
  base: bigint,
  allocations: Allocations,
  budget: Budget,
): Promise<WalkedHeap> {
  const own = allocations.holding(base);
  const parts: HeapPart[] = own === null ? [] : [allocations.part('base', own)];
  const taken = new Set(own === null ? [] : [own]);
  const breaks: string[] = [];
  let subHeaps = 0;
  let largeBlocks = 0;
  const subheaps = await walkList(memory, base + BigInt(WINE64.subheapList), budget);
  for (const entry of subheaps.entries) {
    const header = entry - BigInt(WINE64.subheapEntry);
    const owner = await memory.readMemory(header + BigInt(WINE64.subheapOwner), 8);
    if (owner === null || owner.length < 8 || owner.readBigUInt64LE(0) !== base) {
      breaks.push(`sub-heap ${hex(header)} does not name heap ${hex(base)} as its owner`);
      break;
    }
    subHeaps++;
    const allocation = allocations.holding(header);
    if (allocation === null || taken.has(allocation)) continue;
    taken.add(allocation);
    parts.push(allocations.part('sub-heap', allocation));
  }
  if (subheaps.broken !== undefined) breaks.push(subheaps.broken);
  const large = await walkList(memory, base + BigInt(WINE64.largeList), budget);
  for (const entry of large.entries) {
    largeBlocks++;
    const allocation = allocations.holding(entry);
    if (allocation === null || taken.has(allocation)) continue;
    taken.add(allocation);
    parts.push(allocations.part('large-block', allocation));
  }
  if (large.broken !== undefined) breaks.push(large.broken);
  return totals({
    base,
    layout: 'wine',
    walk: breaks.length === 0 ? 'complete' : 'partial',
    parts,
    subHeaps,
    largeBlocks,
    ...(breaks.length === 0 ? {} : { note: breaks.join('; ') }),
  });
}

/** Other Wine heaps on a Wine heap's process list (`entry`), each checked by its magic. */
async function wineListed(memory: HeapMemory, base: bigint, budget: Budget): Promise<bigint[]> {
  const list = await walkList(memory, base + BigInt(WINE64.heapList), budget);
  const heaps: bigint[] = [];
  for (const entry of list.entries) {
    const heap = entry - BigInt(WINE64.heapList);
    if ((await layoutOf(memory, heap)) === 'wine') heaps.push(heap);
  }
  return heaps;
}

/**
 * Walks every heap named (PEB.ProcessHeaps and PEB.ProcessHeap, or the signed heap headers:
 * process-heaps.ts) and those a Wine heap's process list adds. An amd64 dump's heaps only: other
 * architectures' heaps count as the allocation holding their base, with a note.
 */
export async function walkHeaps(
  memory: HeapMemory,
  regions: readonly MemoryRegion[],
  heaps: readonly bigint[],
  arch: string | undefined,
  limits: HeapWalkLimits = {},
): Promise<HeapWalk> {
  const allocations = new Allocations(regions);
  const budget: Budget = { left: limits.maxEntries ?? DEFAULT_MAX_ENTRIES, read: 0 };
  const maxHeaps = limits.maxHeaps ?? MAX_HEAPS;
  const queue = [...new Set(heaps)].slice(0, maxHeaps);
  const named = new Set(queue);
  const discovered: bigint[] = [];
  const out: WalkedHeap[] = [];
  let listsRead = false;
  for (let i = 0; i < queue.length; i++) {
    const base = queue[i];
    if (base === undefined) continue;
    const layout = arch === 'amd64' ? await layoutOf(memory, base) : 'unknown';
    if (layout === 'wine') {
      out.push(await walkWineHeap(memory, base, allocations, budget));
      // One process list holds every Wine heap: read it once.
      if (!listsRead) {
        listsRead = true;
        for (const heap of await wineListed(memory, base, budget)) {
          if (named.has(heap) || queue.length >= maxHeaps) continue;
          named.add(heap);
          queue.push(heap);
          discovered.push(heap);
        }
      }
      continue;
    }
    const own = allocations.holding(base);
    out.push(
      totals({
        base,
        layout,
        walk: 'base-only',
        parts: own === null ? [] : [allocations.part('base', own)],
        subHeaps: 0,
        largeBlocks: 0,
        note:
          arch === 'amd64'
            ? NOT_WALKED[layout]
            : `a ${arch ?? 'unknown-architecture'} dump: only win64 heaps are walked; counted as the allocation holding its base`,
      }),
    );
  }
  return { heaps: out, discovered, entriesRead: budget.read };
}
