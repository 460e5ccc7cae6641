// Breakpad's own stream (MD_BREAKPAD_INFO_STREAM = 0x47670001): which thread wrote the dump and
// which thread asked for it (the crashing one, or the caller of WriteMinidump), each valid only
// when its flag is set. Layout MDRawBreakpadInfo from Breakpad's minidump_format.h
// (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/src/google_breakpad/common/minidump_format.h):
// u32 validity (1 = dump_thread_id valid, 2 = requesting_thread_id valid), u32 dump_thread_id,
// u32 requesting_thread_id.
import { u32 } from '../bytes.js';
import type { StreamContext } from '../stream-context.js';

export interface BreakpadInfo {
  /** The thread that wrote the dump (Breakpad's handler thread): not the crash's. */
  dumpThreadId?: number;
  /** The thread the dump is about: the one that crashed or called WriteMinidump. */
  requestingThreadId?: number;
}

const BREAKPAD_INFO_SIZE = 12;

export function parseBreakpadInfo(ctx: StreamContext): BreakpadInfo | null {
  const { data } = ctx;
  if (data.length < BREAKPAD_INFO_SIZE) {
    ctx.warn(`BreakpadInfo: ${data.length}-byte stream is shorter than its 12-byte record`);
    return null;
  }
  const validity = u32(data, 0);
  const out: BreakpadInfo = {};
  if ((validity & 1) !== 0) out.dumpThreadId = u32(data, 4);
  if ((validity & 2) !== 0) out.requestingThreadId = u32(data, 8);
  return out;
}
