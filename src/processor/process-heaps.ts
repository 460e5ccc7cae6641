// The process heaps of a Windows dump, read through a thread's TEB from the dump's captured
// memory: what memory-by-category reports count as heap regions. First the heaps the PEB lists
// (PEB.NumberOfHeaps / PEB.ProcessHeaps) and PEB.ProcessHeap. Wine never fills the PEB's heap
// list (a Debugger Engine `.dump /ma` of a Wine 8 process reads NumberOfHeaps 0, ProcessHeaps
// NULL: test/dbgeng/heap-trend-from-dumps.dbgeng.ts), so when the list is empty the private
// allocations are probed for the heap header's segment signature 0xFFEEFFEE, which Wine keeps
// where Windows has it (struct heap's `ffeeffee` field, "0008/0010" for win32/win64, in
// https://gitlab.winehq.org/wine/wine/-/blob/wine-8.0/dlls/ntdll/heap.c). A dump that did not
// capture these structures gives an empty list.
import type { Minidump } from '../minidump/minidump.js';
import { MEM_COMMIT, MEM_PRIVATE } from '../minidump/streams/memory-info-list.js';

// x64 and x86 offsets of the PEB pointer in the TEB and of NumberOfHeaps/ProcessHeaps in the PEB
// (https://www.geoffchappell.com/studies/windows/km/ntoskrnl/inc/api/pebteb/peb/index.htm).
// PEB.ProcessHeap is at 0x30 (x64) / 0x18 (x86), same source.
const LAYOUT = {
  amd64: {
    pebInTeb: 0x60,
    processHeap: 0x30,
    numberOfHeaps: 0xe8,
    processHeaps: 0xf0,
    pointer: 8,
    signature: 0x10,
  },
  x86: {
    pebInTeb: 0x30,
    processHeap: 0x18,
    numberOfHeaps: 0x88,
    processHeaps: 0x90,
    pointer: 4,
    signature: 0x8,
  },
} as const;
/** More heaps than a process makes: a bigger count is corrupt and ignored. */
export const MAX_HEAPS = 4096;
/** Private allocations probed for a heap signature, at most (each probe reads a page or so). */
const MAX_PROBES = 1024;
export const HEAP_SIGNATURE = 0xffeeffee;

function pointerAt(buf: Buffer, at: number, size: 4 | 8): bigint | null {
  if (buf.length < at + size) return null;
  return size === 8 ? buf.readBigUInt64LE(at) : BigInt(buf.readUInt32LE(at));
}

/** The heaps of the dump's process (PEB.ProcessHeaps and PEB.ProcessHeap, else by signature). */
export async function processHeaps(dump: Minidump, teb: bigint | undefined): Promise<bigint[]> {
  const arch = (await dump.systemInfo())?.arch;
  const layout = arch === 'amd64' ? LAYOUT.amd64 : arch === 'x86' ? LAYOUT.x86 : null;
  if (layout === null || teb === undefined || teb === 0n) return [];
  const tebBytes = await dump.readMemory(teb + BigInt(layout.pebInTeb), layout.pointer);
  const peb = tebBytes === null ? null : pointerAt(tebBytes, 0, layout.pointer);
  if (peb === null || peb === 0n) return [];
  const heaps = new Set(await listedHeaps(dump, peb, layout));
  const defaultHeap = await dump.readMemory(peb + BigInt(layout.processHeap), layout.pointer);
  const processHeap = defaultHeap === null ? null : pointerAt(defaultHeap, 0, layout.pointer);
  if (heaps.size === 0) for (const heap of await signedHeaps(dump, layout)) heaps.add(heap);
  if (processHeap !== null && processHeap !== 0n) heaps.add(processHeap);
  return [...heaps];
}

type Layout = (typeof LAYOUT)[keyof typeof LAYOUT];

async function listedHeaps(dump: Minidump, peb: bigint, layout: Layout): Promise<bigint[]> {
  const pebBytes = await dump.readMemory(peb + BigInt(layout.numberOfHeaps), 8 + layout.pointer);
  if (pebBytes === null || pebBytes.length < 8 + layout.pointer) return [];
  const count = pebBytes.readUInt32LE(0);
  const array = pointerAt(pebBytes, layout.processHeaps - layout.numberOfHeaps, layout.pointer);
  if (array === null || count === 0 || count > MAX_HEAPS) return [];
  const list = await dump.readMemory(array, count * layout.pointer);
  if (list === null) return [];
  const heaps: bigint[] = [];
  for (let i = 0; i + layout.pointer <= list.length; i += layout.pointer) {
    const heap = pointerAt(list, i, layout.pointer);
    if (heap !== null && heap !== 0n) heaps.push(heap);
  }
  return heaps;
}

/** Committed private allocations whose first bytes carry the heap segment signature. */
async function signedHeaps(dump: Minidump, layout: Layout): Promise<bigint[]> {
  const info = await dump.memoryInfo();
  if (info === null) return [];
  const bases = new Set<bigint>();
  for (const region of info.regions) {
    // Only an allocation's first region holds its header.
    if (region.baseAddress !== region.allocationBase) continue;
    if (region.state !== MEM_COMMIT || region.type !== MEM_PRIVATE) continue;
    bases.add(region.allocationBase);
    if (bases.size >= MAX_PROBES) break;
  }
  const heaps: bigint[] = [];
  for (const base of bases) {
    const bytes = await dump.readMemory(base + BigInt(layout.signature), 4);
    if (bytes !== null && bytes.length === 4 && bytes.readUInt32LE(0) === HEAP_SIGNATURE) {
      heaps.push(base);
    }
  }
  return heaps;
}
