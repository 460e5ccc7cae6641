// MemoryInfoList (16): the VirtualQuery map of every region, captured or not (minidumpapiset.h):
// a 16-byte header with a u64 count, then 48-byte MINIDUMP_MEMORY_INFO. Summed here into
// state/type/protection totals, the input for heap trends (COMMIT + PRIVATE).
import { u32, u64 } from '../bytes.js';
import { newStyleList, type StreamContext } from '../stream-context.js';

export const MEM_COMMIT = 0x1000;
export const MEM_RESERVE = 0x2000;
export const MEM_FREE = 0x10000;
export const MEM_PRIVATE = 0x20000;
export const MEM_MAPPED = 0x40000;
export const MEM_IMAGE = 0x1000000;

export interface MemoryRegion {
  baseAddress: bigint;
  allocationBase: bigint;
  allocationProtect: number;
  regionSize: bigint;
  state: number;
  protect: number;
  type: number;
}

export interface MemoryInfoSummary {
  regionCount: number;
  committedBytes: number;
  reservedBytes: number;
  freeBytes: number;
  /** Committed private memory: heaps, stacks and VirtualAlloc'd data. */
  privateCommittedBytes: number;
  imageCommittedBytes: number;
  mappedCommittedBytes: number;
  /** Committed bytes by base protection name (`PAGE_READWRITE`, …; `+GUARD` etc. appended). */
  committedByProtect: Record<string, number>;
}

export function parseMemoryInfoList(ctx: StreamContext): MemoryRegion[] {
  const { offset, count, entrySize } = newStyleList(ctx, 48, true);
  const out: MemoryRegion[] = [];
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const d = ctx.data;
    out.push({
      baseAddress: u64(d, at),
      allocationBase: u64(d, at + 8),
      allocationProtect: u32(d, at + 16),
      regionSize: u64(d, at + 24),
      state: u32(d, at + 32),
      protect: u32(d, at + 36),
      type: u32(d, at + 40),
    });
  }
  return out;
}

const PROTECT_NAMES = new Map<number, string>([
  [0x01, 'PAGE_NOACCESS'],
  [0x02, 'PAGE_READONLY'],
  [0x04, 'PAGE_READWRITE'],
  [0x08, 'PAGE_WRITECOPY'],
  [0x10, 'PAGE_EXECUTE'],
  [0x20, 'PAGE_EXECUTE_READ'],
  [0x40, 'PAGE_EXECUTE_READWRITE'],
  [0x80, 'PAGE_EXECUTE_WRITECOPY'],
]);

export function protectName(protect: number): string {
  const base = PROTECT_NAMES.get(protect & 0xff) ?? `0x${(protect & 0xff).toString(16)}`;
  const extras = [
    [0x100, 'GUARD'],
    [0x200, 'NOCACHE'],
    [0x400, 'WRITECOMBINE'],
  ] as const;
  return [base, ...extras.filter(([bit]) => (protect & bit) !== 0).map(([, n]) => n)].join('+');
}

export function summarizeMemoryInfo(regions: readonly MemoryRegion[]): MemoryInfoSummary {
  const summary: MemoryInfoSummary = {
    regionCount: regions.length,
    committedBytes: 0,
    reservedBytes: 0,
    freeBytes: 0,
    privateCommittedBytes: 0,
    imageCommittedBytes: 0,
    mappedCommittedBytes: 0,
    committedByProtect: {},
  };
  for (const region of regions) {
    const size = Number(region.regionSize);
    if (region.state === MEM_COMMIT) {
      summary.committedBytes += size;
      if (region.type === MEM_PRIVATE) summary.privateCommittedBytes += size;
      else if (region.type === MEM_IMAGE) summary.imageCommittedBytes += size;
      else if (region.type === MEM_MAPPED) summary.mappedCommittedBytes += size;
      const name = protectName(region.protect);
      summary.committedByProtect[name] = (summary.committedByProtect[name] ?? 0) + size;
    } else if (region.state === MEM_RESERVE) summary.reservedBytes += size;
    else if (region.state === MEM_FREE) summary.freeBytes += size;
  }
  return summary;
}
