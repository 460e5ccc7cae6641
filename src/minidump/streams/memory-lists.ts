// MemoryList (5): count then 16-byte {Start u64, DataSize u32, Rva u32}, each range with its own
// file offset. Memory64List (9): {count u64, BaseRva u64} then 16-byte {Start u64, Size u64}, whose
// bytes lie back to back from BaseRva in descriptor order (notes §4.4). Both become plain captured
// ranges here; any part whose bytes are not in the file is cut off (a truncated full dump keeps
// what is readable) and reported.
import { safeNumber, u32, u64 } from '../bytes.js';
import { oldStyleList, type StreamContext } from '../stream-context.js';

export interface CapturedRange {
  start: bigint;
  /** Bytes present in the file for this range (may be less than the writer declared). */
  size: number;
  /** File offset of the first byte. */
  fileOffset: number;
  source: 'MemoryList' | 'Memory64List';
}

export interface MemoryListResult {
  ranges: CapturedRange[];
  /** Bytes the descriptors declare. */
  declaredBytes: number;
  /** Declared bytes that are not in the file. */
  missingBytes: number;
}

export function parseMemoryList(ctx: StreamContext): MemoryListResult {
  const { offset, count, entrySize } = oldStyleList(ctx, 16);
  const ranges: CapturedRange[] = [];
  let declaredBytes = 0;
  let missingBytes = 0;
  let badRanges = 0;
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const start = u64(ctx.data, at);
    const size = u32(ctx.data, at + 8);
    const rva = u32(ctx.data, at + 12);
    declaredBytes += size;
    const present = Math.max(0, Math.min(size, ctx.fileSize - rva));
    if (present < size) {
      missingBytes += size - present;
      badRanges++;
    }
    if (present > 0) ranges.push({ start, size: present, fileOffset: rva, source: 'MemoryList' });
  }
  if (badRanges > 0) {
    ctx.warn(
      `MemoryList: ${badRanges} range(s) point past the end of the file; ${missingBytes} bytes of captured memory are missing`,
    );
  }
  return { ranges, declaredBytes, missingBytes };
}

export function parseMemory64List(ctx: StreamContext): MemoryListResult {
  const { data, info } = ctx;
  if (data.length < 16) {
    ctx.warn(`Memory64List: ${data.length}-byte stream is too short for its header`);
    return { ranges: [], declaredBytes: 0, missingBytes: 0 };
  }
  const claimed = u64(data, 0);
  const fits = Math.floor((data.length - 16) / 16);
  let count = claimed > BigInt(fits) ? fits : Number(claimed);
  if (BigInt(count) < claimed) {
    ctx.warn(
      `${info.name}: claims ${claimed} ranges but its ${data.length} bytes hold only ${fits}; reading ${fits}`,
    );
  }
  const baseRva = safeNumber(u64(data, 8));
  if (baseRva === undefined || baseRva > ctx.fileSize) {
    ctx.warn(
      `Memory64List: BaseRva ${u64(data, 8)} is past the end of the ${ctx.fileSize}-byte file; no memory is readable`,
    );
    count = 0;
  }
  const ranges: CapturedRange[] = [];
  let cursor = baseRva ?? 0;
  let declaredBytes = 0;
  let missingBytes = 0;
  let overflow = false;
  for (let i = 0; i < count; i++) {
    const at = 16 + i * 16;
    const start = u64(data, at);
    const declared = safeNumber(u64(data, at + 8));
    if (declared === undefined || cursor + declared > Number.MAX_SAFE_INTEGER) {
      overflow = true;
      break;
    }
    declaredBytes += declared;
    const present = Math.max(0, Math.min(declared, ctx.fileSize - cursor));
    missingBytes += declared - present;
    if (present > 0)
      ranges.push({ start, size: present, fileOffset: cursor, source: 'Memory64List' });
    cursor += declared;
  }
  if (overflow)
    ctx.warn('Memory64List: a range size is absurd (past 2^53 bytes); later ranges ignored');
  if (missingBytes > 0) {
    ctx.warn(
      `Memory64List: the file ends before the captured memory does: ${missingBytes} of ${declaredBytes} bytes are missing (truncated full dump); the readable part is kept`,
    );
  }
  return { ranges, declaredBytes, missingBytes };
}
