// MINIDUMP_STRING: a u32 byte length (terminator not counted) then UTF-16LE text (minidumpapiset.h).
// Decode exactly Length bytes, reject odd lengths, cap the length, never rely on the NUL (Wine's
// thread names have none).
import { u32 } from './bytes.js';

/** ClrMD's cap; no path or name in a real dump comes near it. */
export const MAX_STRING_BYTES = 64 * 1024;

export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

/**
 * The string at `rva`. `pastEnd` marks a string the file does not hold (a truncated file); `spend`
 * is asked before the body is read (a per-dump budget) and may refuse.
 */
export async function readMinidumpString(
  read: ReadAt,
  rva: number,
  fileSize: number,
  spend: (bytes: number) => boolean = () => true,
): Promise<{ ok: true; value: string } | { ok: false; reason: string; pastEnd?: boolean }> {
  if (rva === 0) return { ok: false, reason: 'no string (RVA 0)' };
  if (rva + 4 > fileSize)
    return {
      ok: false,
      reason: `string RVA 0x${rva.toString(16)} is past the end of the file`,
      pastEnd: true,
    };
  const head = await read(rva, 4);
  const length = u32(head, 0);
  if (length % 2 !== 0)
    return {
      ok: false,
      reason: `string at 0x${rva.toString(16)} has an odd byte length ${length}`,
    };
  if (length > MAX_STRING_BYTES) {
    return {
      ok: false,
      reason: `string at 0x${rva.toString(16)} claims ${length} bytes (cap ${MAX_STRING_BYTES})`,
    };
  }
  if (rva + 4 + length > fileSize) {
    return {
      ok: false,
      reason: `string at 0x${rva.toString(16)} runs past the end of the file`,
      pastEnd: true,
    };
  }
  if (!spend(length)) {
    return { ok: false, reason: `string at 0x${rva.toString(16)} is over the dump's budget` };
  }
  const body = await read(rva + 4, length);
  return { ok: true, value: body.toString('utf16le') };
}
