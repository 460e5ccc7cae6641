// ThreadList (3, 48-byte MINIDUMP_THREAD) and ThreadExList (8, 64-byte MINIDUMP_THREAD_EX, which
// adds an IA-64 backing store); minidumpapiset.h. The context here is the one at dump time; the
// exception stream has its own context for the faulting moment.
import { u32, u64 } from '../bytes.js';
import { oldStyleList, type StreamContext } from '../stream-context.js';

export interface MemoryLocation {
  start: bigint;
  size: number;
  /** File offset of the bytes (may be unusable in a full dump: look stacks up by address). */
  rva: number;
}

export interface DumpThread {
  id: number;
  suspendCount: number;
  priorityClass: number;
  priority: number;
  teb: bigint;
  stack: MemoryLocation;
  context: { size: number; rva: number };
  backingStore?: MemoryLocation;
}

/**
 * More threads than a process can run (each reserves a stack: 65,536 × 1 MiB is 64 GiB of
 * address space). A list claiming more is read this far, with a warning.
 */
export const MAX_THREADS = 65_536;

export function parseThreadList(ctx: StreamContext, extended: boolean): DumpThread[] {
  const layout = oldStyleList(ctx, extended ? 64 : 48);
  const { offset, entrySize } = layout;
  let count = layout.count;
  const claimed = layout.claimed ?? count;
  if (claimed > MAX_THREADS) {
    ctx.warn(
      `${ctx.info.name}: claims ${claimed} threads, more than a process can run; only the first ${MAX_THREADS} are read (partial)`,
    );
    count = Math.min(count, MAX_THREADS);
  }
  const threads: DumpThread[] = [];
  const ids = new Set<number>();
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const d = ctx.data;
    const thread: DumpThread = {
      id: u32(d, at),
      suspendCount: u32(d, at + 4),
      priorityClass: u32(d, at + 8),
      priority: u32(d, at + 12),
      teb: u64(d, at + 16),
      stack: { start: u64(d, at + 24), size: u32(d, at + 32), rva: u32(d, at + 36) },
      context: { size: u32(d, at + 40), rva: u32(d, at + 44) },
    };
    if (extended) {
      thread.backingStore = { start: u64(d, at + 48), size: u32(d, at + 56), rva: u32(d, at + 60) };
    }
    if (ids.has(thread.id)) ctx.warn(`${ctx.info.name}: thread id ${thread.id} appears twice`);
    ids.add(thread.id);
    threads.push(thread);
  }
  return threads;
}
