// MINIDUMP_STRING: a u32 byte length (terminator not counted) then UTF-16LE text (minidumpapiset.h).
// Decode exactly Length bytes, reject odd lengths, cap the length, never rely on the NUL (Wine's
// thread names have none).
import { u32 } from './bytes.js';

/** ClrMD's cap; no path or name in a real dump comes near it. */
export const MAX_STRING_BYTES = 64 * 1024;

export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

export type StringResult =
  { ok: true; value: string } | { ok: false; reason: string; pastEnd?: boolean };

/**
 * The string at `rva`. `pastEnd` marks a string the file does not hold (a truncated file); `spend`
 * is asked before the body is read (a per-dump budget) and may refuse.
 */
export async function readMinidumpString(
  read: ReadAt,
  rva: number,
  fileSize: number,
  spend: (bytes: number) => boolean = () => true,
): Promise<StringResult> {
  const refused = refuseRva(rva, fileSize);
  if (refused !== undefined) return refused;
  const length = u32(await read(rva, 4), 0);
  const bad = refuseLength(rva, length, fileSize, spend);
  if (bad !== undefined) return bad;
  const body = await read(rva + 4, length);
  return { ok: true, value: body.toString('utf16le') };
}

/**
 * readMinidumpString on a file held in memory (`file` is all of it): the same answers, without
 * the two promises per string (a module list reads one name a module, dump after dump).
 */
export function readMinidumpStringNow(
  file: Buffer,
  rva: number,
  spend: (bytes: number) => boolean = () => true,
): StringResult {
  const refused = refuseRva(rva, file.length);
  if (refused !== undefined) return refused;
  const length = u32(file, rva);
  const bad = refuseLength(rva, length, file.length, spend);
  if (bad !== undefined) return bad;
  return { ok: true, value: file.toString('utf16le', rva + 4, rva + 4 + length) };
}

function refuseRva(rva: number, fileSize: number): StringResult | undefined {
  if (rva === 0) return { ok: false, reason: 'no string (RVA 0)' };
  if (rva + 4 > fileSize)
    return {
      ok: false,
      reason: `string RVA 0x${rva.toString(16)} is past the end of the file`,
      pastEnd: true,
    };
  return undefined;
}

function refuseLength(
  rva: number,
  length: number,
  fileSize: number,
  spend: (bytes: number) => boolean,
): StringResult | undefined {
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
  return undefined;
}
