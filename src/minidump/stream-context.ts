// What a stream parser is handed: the stream's bytes (already bounded by the file size), a way to
// follow RVAs out of the stream (strings, CodeView records), and a warning sink. Plus the two list
// shapes of the format (minidumpapiset.h), whose counts are checked against the stream size here, before
// any parser loops or allocates: a count of 0xffffffff is clamped to what the stream can hold.
import { u32, u64 } from './bytes.js';
import type { StreamInfo } from './directory.js';

export interface StreamContext {
  file: string;
  fileSize: number;
  info: StreamInfo;
  /** The stream's bytes that are in the file (shorter than info.size when truncated). */
  data: Buffer;
  /** A warning; `kind` groups repeats of one problem (see warning-log.ts). */
  warn(message: string, kind?: string): void;
  /** Counts a reference that lies past the end of the file (`strings`, `CodeView records`). */
  pastEnd(what: string): void;
  /** Asks to read `bytes` more of referenced data (CodeView…); false once the dump's budget is spent. */
  followReference(bytes: number): boolean;
  /** Bytes at a file offset (fewer at EOF). */
  read(offset: number, length: number): Promise<Buffer>;
  /**
   * The whole file when it is held in memory (and no abort was asked for): `read()` of a range
   * inside it answers `subarray(offset, end)` of these bytes, so a parser may take them without
   * a promise. Undefined when reads must go through `read()`.
   */
  heldBytes?(): Buffer | undefined;
  /**
   * A MINIDUMP_STRING at `rva`, or null (with a warning) when it cannot be read. Answers without
   * a promise when it needs no file read (a string seen before, or a dump held in memory).
   */
  readString(rva: number, what: string): string | null | Promise<string | null>;
}

export interface ListLayout {
  /** Offset of the first entry within the stream. */
  offset: number;
  count: number;
  entrySize: number;
  /** The count the stream claims, before it was clamped to what the bytes read hold. */
  claimed?: number;
}

/** `count u32` then entries, with optional 4 bytes of padding after the count. */
export function oldStyleList(ctx: StreamContext, entrySize: number): ListLayout {
  const { data, info } = ctx;
  if (data.length < 4) {
    ctx.warn(`${info.name}: ${data.length}-byte stream is too short for its count`);
    return { offset: 4, count: 0, entrySize };
  }
  const claimed = u32(data, 0);
  // Writers that pad the count to 8 bytes make DataSize exactly 8 + n·entry.
  const offset = info.size === 8 + claimed * entrySize && claimed > 0 ? 8 : 4;
  return { offset, count: clampCount(ctx, claimed, offset, entrySize), entrySize, claimed };
}

/** {SizeOfHeader, SizeOfEntry, NumberOfEntries (u32 or u64)} then entries stepped by SizeOfEntry. */
export function newStyleList(
  ctx: StreamContext,
  minEntrySize: number,
  countIsU64 = false,
): ListLayout {
  const { data, info } = ctx;
  const minHeader = countIsU64 ? 16 : 12;
  if (data.length < minHeader) {
    ctx.warn(`${info.name}: ${data.length}-byte stream is too short for its header`);
    return { offset: minHeader, count: 0, entrySize: minEntrySize };
  }
  const headerSize = u32(data, 0);
  const entrySize = u32(data, 4);
  const claimed = countIsU64 ? u64(data, 8) : BigInt(u32(data, 8));
  if (headerSize < minHeader || headerSize > data.length) {
    ctx.warn(`${info.name}: header size ${headerSize} is impossible; stream ignored`);
    return { offset: minHeader, count: 0, entrySize: minEntrySize };
  }
  if (entrySize < minEntrySize) {
    ctx.warn(
      `${info.name}: entry size ${entrySize} is smaller than the ${minEntrySize} bytes of a known entry; stream ignored`,
    );
    return { offset: headerSize, count: 0, entrySize: minEntrySize };
  }
  const count = claimed > 0xffffffffn ? 0xffffffff : Number(claimed);
  return { offset: headerSize, count: clampCount(ctx, count, headerSize, entrySize), entrySize };
}

function clampCount(
  ctx: StreamContext,
  claimed: number,
  offset: number,
  entrySize: number,
): number {
  const fits = Math.max(0, Math.floor((ctx.data.length - offset) / entrySize));
  if (claimed <= fits) return claimed;
  const whole = Math.max(0, Math.floor((ctx.info.size - offset) / entrySize));
  // The caller read only the first entries (its own cap): it says so itself.
  if (claimed <= whole && !ctx.info.truncated) return fits;
  const why = ctx.info.truncated ? ' (the stream is truncated)' : '';
  ctx.warn(
    `${ctx.info.name}: claims ${claimed} entries but its ${ctx.data.length} bytes hold only ${fits}${why}; reading ${fits}`,
  );
  return fits;
}
