// The process heaps a Windows dump's PEB lists (PEB.NumberOfHeaps / PEB.ProcessHeaps), read
// through a thread's TEB from the dump's captured memory: what memory-by-category reports count as
// heap regions. A dump that did not capture these structures gives an empty list.
import type { Minidump } from '../minidump/minidump.js';

// x64 and x86 offsets of the PEB pointer in the TEB and of NumberOfHeaps/ProcessHeaps in the PEB
// (https://www.geoffchappell.com/studies/windows/km/ntoskrnl/inc/api/pebteb/peb/index.htm).
const LAYOUT = {
  amd64: { pebInTeb: 0x60, numberOfHeaps: 0xe8, processHeaps: 0xf0, pointer: 8 },
  x86: { pebInTeb: 0x30, numberOfHeaps: 0x88, processHeaps: 0x90, pointer: 4 },
} as const;
/** More heaps than a process makes: a bigger count is corrupt and ignored. */
const MAX_HEAPS = 4096;

function pointerAt(buf: Buffer, at: number, size: 4 | 8): bigint | null {
  if (buf.length < at + size) return null;
  return size === 8 ? buf.readBigUInt64LE(at) : BigInt(buf.readUInt32LE(at));
}

/** PEB.ProcessHeaps of the dump's process, read through the first thread's TEB. */
export async function processHeaps(dump: Minidump, teb: bigint | undefined): Promise<bigint[]> {
  const arch = (await dump.systemInfo())?.arch;
  const layout = arch === 'amd64' ? LAYOUT.amd64 : arch === 'x86' ? LAYOUT.x86 : null;
  if (layout === null || teb === undefined || teb === 0n) return [];
  const tebBytes = await dump.readMemory(teb + BigInt(layout.pebInTeb), layout.pointer);
  const peb = tebBytes === null ? null : pointerAt(tebBytes, 0, layout.pointer);
  if (peb === null || peb === 0n) return [];
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
