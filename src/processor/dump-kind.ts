// Full or mini, decided from what the dump holds, not from the header flags (a writer may ignore
// flags: Wine's dbghelp drops most of them). The flags are reported as written, and every place
// where they promise a stream that is missing, or deny memory that is there, becomes a warning.
import type { StreamInfo } from '../minidump/directory.js';
import { StreamType } from '../minidump/stream-types.js';

export type DumpKind = 'full' | 'mini';

export const MiniDumpType = {
  WithDataSegs: 0x1n,
  WithFullMemory: 0x2n,
  WithHandleData: 0x4n,
  WithUnloadedModules: 0x20n,
  WithPrivateReadWriteMemory: 0x200n,
  WithFullMemoryInfo: 0x800n,
  WithThreadInfo: 0x1000n,
  WithPrivateWriteCopyMemory: 0x10000n,
} as const;

/** A full dump holds all committed memory; no real process has less than this. */
export const FULL_MEMORY_THRESHOLD = 1024 * 1024;

export interface KindFacts {
  flags: bigint;
  streams: readonly StreamInfo[];
  /** Bytes the Memory64List declares (present or not: a truncated full dump is still full). */
  memory64DeclaredBytes: number;
}

export function classifyDump(facts: KindFacts): { kind: DumpKind; warnings: string[] } {
  const { flags, streams, memory64DeclaredBytes } = facts;
  const has = (type: number) => streams.some((s) => s.type === type);
  const warnings: string[] = [];
  const hex = `0x${flags.toString(16)}`;
  const hasMemory64 = has(StreamType.Memory64List);
  const full = hasMemory64 && memory64DeclaredBytes >= FULL_MEMORY_THRESHOLD;
  const flagsSayFull = (flags & MiniDumpType.WithFullMemory) !== 0n;
  if (hasMemory64 && !full) {
    warnings.push(
      `the Memory64List holds only ${memory64DeclaredBytes} bytes, too little for full memory; treated as a minidump`,
    );
  }
  if (full && !flagsSayFull) {
    warnings.push(
      `header flags ${hex} lack MiniDumpWithFullMemory (0x2), but the dump holds full memory (${memory64DeclaredBytes} bytes in a Memory64List); the writer did not record its flags faithfully`,
    );
  }
  if (!full && flagsSayFull) {
    warnings.push(
      `header flags ${hex} include MiniDumpWithFullMemory (0x2), but the dump holds no full memory list`,
    );
  }
  const promised: [bigint, number, string][] = [
    [
      MiniDumpType.WithHandleData,
      StreamType.HandleData,
      'MiniDumpWithHandleData (0x4) → HandleData',
    ],
    [
      MiniDumpType.WithUnloadedModules,
      StreamType.UnloadedModuleList,
      'MiniDumpWithUnloadedModules (0x20) → UnloadedModuleList',
    ],
    [
      MiniDumpType.WithFullMemoryInfo,
      StreamType.MemoryInfoList,
      'MiniDumpWithFullMemoryInfo (0x800) → MemoryInfoList',
    ],
    [
      MiniDumpType.WithThreadInfo,
      StreamType.ThreadInfoList,
      'MiniDumpWithThreadInfo (0x1000) → ThreadInfoList',
    ],
  ];
  for (const [bit, type, what] of promised) {
    if ((flags & bit) !== 0n && !has(type))
      warnings.push(`header flags ${hex} ask for ${what}, but that stream is missing`);
  }
  return { kind: full ? 'full' : 'mini', warnings };
}
