// A stack scan for the builtin engine (Breakpad's last-resort unwinder): the pointer-sized words of
// the faulting thread's captured stack that point into a loaded module's image are taken as
// candidate return addresses, top of stack first. It is a heuristic: a pointer to a module's
// data reads as a frame too. But it is deterministic for a given crash, which is what bucketing
// needs, and it is only used when the exception address itself says nothing, i.e. when the
// exception happened inside a skip-listed module (KERNELBASE!RaiseException for every C++ throw,
// CLR exception and RaiseException call; ntdll for breakpoints).
import { open } from 'node:fs/promises';
import { openMinidump } from '../../minidump/index.js';
import type { InspectedModule } from '../../minidump/inspect.js';
import type { AnalyzeFrame } from '../../report/analyze/analyze-record.js';
import { stripExtension } from './builtin-record.js';

export interface StackScanOptions {
  threadId: number;
  modules: readonly InspectedModule[];
  /** 8 on amd64/arm64, 4 on x86. */
  wordSize: 4 | 8;
  maxFrames?: number;
  /** How much of the stack to look at, from its captured start (the stack pointer) up. */
  maxBytes?: number;
  signal?: AbortSignal;
}

/** PE headers occupy the first page of an image; no code lives there. */
const HEADER_BYTES = 0x1000n;

export async function scanStack(path: string, options: StackScanOptions): Promise<AnalyzeFrame[]> {
  const maxFrames = options.maxFrames ?? 8;
  const maxBytes = options.maxBytes ?? 4096;
  const bytes = await stackBytes(path, options.threadId, maxBytes, options.signal);
  if (bytes === null) return [];
  const images = options.modules.map((m) => {
    const base = BigInt(m.base);
    return { module: m, base, end: base + BigInt(m.size) };
  });
  const frames: AnalyzeFrame[] = [];
  let previous: bigint | undefined;
  for (
    let at = 0;
    at + options.wordSize <= bytes.length && frames.length < maxFrames;
    at += options.wordSize
  ) {
    const value =
      options.wordSize === 8 ? bytes.readBigUInt64LE(at) : BigInt(bytes.readUInt32LE(at));
    if (value === previous) continue;
    const image = images.find((i) => value >= i.base + HEADER_BYTES && value < i.end);
    if (!image) continue;
    previous = value;
    frames.push({
      module: stripExtension(image.module.name),
      offset: `0x${(value - image.base).toString(16)}`,
      address: `0x${value.toString(16)}`,
      trust: 'scan',
    });
  }
  return frames;
}

/**
 * The captured stack of one thread. Mini dumps keep it at the file offset the thread list gives,
 * read directly (building the whole memory map costs more than the scan); otherwise (full dumps,
 * Memory64List) it is looked up by address.
 */
async function stackBytes(
  path: string,
  threadId: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Buffer | null> {
  const dump = await openMinidump(path, signal === undefined ? {} : { signal });
  let location: { start: bigint; size: number; rva: number } | undefined;
  try {
    location = (await dump.threads()).find((t) => t.id === threadId)?.stack;
    if (location === undefined || location.size === 0) return null;
    const length = Math.min(location.size, maxBytes);
    if (location.rva === 0 || location.rva + length > dump.fileSize) {
      return await dump.readMemory(location.start, length);
    }
  } finally {
    await dump.close();
  }
  const handle = await open(path, 'r');
  try {
    const length = Math.min(location.size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, location.rva);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
