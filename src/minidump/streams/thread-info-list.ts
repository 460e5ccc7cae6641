// ThreadInfoList (17): per-thread flags and times (minidumpapiset.h). DumpFlags 2 marks the thread that
// wrote the dump, which a triage view hides; times are FILETIME / 100 ns units.
import { u32, u64 } from '../bytes.js';
import { newStyleList, type StreamContext } from '../stream-context.js';

export const ThreadDumpFlags = {
  ErrorThread: 0x1,
  WritingThread: 0x2,
  ExitedThread: 0x4,
  InvalidInfo: 0x8,
  InvalidContext: 0x10,
  InvalidTeb: 0x20,
} as const;

export interface ThreadInfo {
  threadId: number;
  dumpFlags: number;
  dumpError: number;
  exitStatus: number;
  /** FILETIME (100 ns since 1601-01-01), 0 when unknown. */
  createTime: bigint;
  exitTime: bigint;
  /** 100 ns units. */
  kernelTime: bigint;
  userTime: bigint;
  startAddress: bigint;
  affinity: bigint;
}

export function parseThreadInfoList(ctx: StreamContext): ThreadInfo[] {
  const { offset, count, entrySize } = newStyleList(ctx, 64);
  const out: ThreadInfo[] = [];
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const d = ctx.data;
    out.push({
      threadId: u32(d, at),
      dumpFlags: u32(d, at + 4),
      dumpError: u32(d, at + 8),
      exitStatus: u32(d, at + 12),
      createTime: u64(d, at + 16),
      exitTime: u64(d, at + 24),
      kernelTime: u64(d, at + 32),
      userTime: u64(d, at + 40),
      startAddress: u64(d, at + 48),
      affinity: u64(d, at + 56),
    });
  }
  return out;
}

/** FILETIME → ISO 8601, or undefined for 0 / out-of-range values. */
export function fileTimeToIso(value: bigint): string | undefined {
  if (value === 0n) return undefined;
  const ms = Number(value / 10_000n) - 11_644_473_600_000;
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : undefined;
}
