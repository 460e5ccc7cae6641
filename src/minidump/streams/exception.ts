// Exception (6), 168 bytes (minidumpapiset.h): the faulting thread, MINIDUMP_EXCEPTION and the thread's
// context at the fault (the thread list holds the context at dump time).
import { u32, u64 } from '../bytes.js';
import type { StreamContext } from '../stream-context.js';

export const EXCEPTION_STREAM_SIZE = 168;
export const EXCEPTION_MAXIMUM_PARAMETERS = 15;

export interface DumpException {
  threadId: number;
  code: number;
  /** 1 = EXCEPTION_NONCONTINUABLE. */
  flags: number;
  /** Address of a chained EXCEPTION_RECORD in the target (usually 0). */
  nestedRecord: bigint;
  address: bigint;
  /** ExceptionInformation[0 .. NumberParameters). */
  parameters: bigint[];
  context: { size: number; rva: number };
}

export function parseException(ctx: StreamContext): DumpException | null {
  const { data } = ctx;
  if (data.length < EXCEPTION_STREAM_SIZE) {
    ctx.warn(
      `Exception: ${data.length}-byte stream is shorter than the ${EXCEPTION_STREAM_SIZE}-byte record`,
    );
    if (data.length < 40) return null;
  }
  let count = u32(data, 32);
  if (count > EXCEPTION_MAXIMUM_PARAMETERS) {
    ctx.warn(
      `Exception: NumberParameters is ${count} (at most ${EXCEPTION_MAXIMUM_PARAMETERS}); reading ${EXCEPTION_MAXIMUM_PARAMETERS}`,
    );
    count = EXCEPTION_MAXIMUM_PARAMETERS;
  }
  const parameters: bigint[] = [];
  for (let i = 0; i < count && 40 + i * 8 + 8 <= data.length; i++)
    parameters.push(u64(data, 40 + i * 8));
  return {
    threadId: u32(data, 0),
    code: u32(data, 8),
    flags: u32(data, 12),
    nestedRecord: u64(data, 16),
    address: u64(data, 24),
    parameters,
    context: { size: u32(data, 160), rva: u32(data, 164) },
  };
}
