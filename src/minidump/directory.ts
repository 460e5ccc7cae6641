// The stream directory: NumberOfStreams × MINIDUMP_DIRECTORY {StreamType, DataSize, Rva} at
// StreamDirectoryRva (minidumpapiset.h). Padding entries (type 0) are skipped; entries that point
// past the end of the file are kept and marked, so a truncated dump still yields what it holds.
import { BadDumpError } from '../errors.js';
import { u32 } from './bytes.js';
import type { MinidumpHeader } from './header.js';
import { SINGLETON_STREAMS, StreamType, streamTypeName } from './stream-types.js';

export const DIRECTORY_ENTRY_SIZE = 12;
/** Far above any writer (DbgHelp writes ~20, Breakpad caps at 128), far below a giant read. */
export const MAX_DIRECTORY_ENTRIES = 4096;

export interface StreamInfo {
  /** Position in the directory. */
  index: number;
  type: number;
  name: string;
  size: number;
  rva: number;
  /** The stream runs past the end of the file: only the bytes before EOF can be read. */
  truncated: boolean;
  /** A second copy of a stream that should appear once; readers use the first copy. */
  duplicate: boolean;
}

/** Where the directory lies; throws BadDumpError when it cannot be inside the file. */
export function directoryExtent(
  file: string,
  header: MinidumpHeader,
  fileSize: number,
): { offset: number; length: number } {
  const { streamCount, directoryRva } = header;
  if (streamCount === 0) throw new BadDumpError(file, `${file}: the header lists 0 streams`);
  if (streamCount > MAX_DIRECTORY_ENTRIES) {
    throw new BadDumpError(
      file,
      `${file}: the header claims ${streamCount} streams (at most ${MAX_DIRECTORY_ENTRIES} are plausible)`,
    );
  }
  const length = streamCount * DIRECTORY_ENTRY_SIZE;
  if (directoryRva < 32 || directoryRva + length > fileSize) {
    throw new BadDumpError(
      file,
      `${file}: the stream directory (${streamCount} entries at 0x${directoryRva.toString(16)}) lies outside the ${fileSize}-byte file; the file is truncated or corrupt`,
    );
  }
  return { offset: directoryRva, length };
}

export function parseDirectory(
  file: string,
  buf: Buffer,
  fileSize: number,
  warn: (message: string) => void,
): StreamInfo[] {
  const streams: StreamInfo[] = [];
  const seen = new Set<number>();
  const entries = Math.floor(buf.length / DIRECTORY_ENTRY_SIZE);
  for (let index = 0; index < entries; index++) {
    const at = index * DIRECTORY_ENTRY_SIZE;
    const type = u32(buf, at);
    const size = u32(buf, at + 4);
    const rva = u32(buf, at + 8);
    if (type === StreamType.Unused) continue;
    const truncated = rva + size > fileSize;
    const duplicate = SINGLETON_STREAMS.has(type) && seen.has(type);
    seen.add(type);
    const name = streamTypeName(type);
    if (truncated) {
      const have = Math.max(0, fileSize - rva);
      warn(
        `stream ${name} (${size} bytes at 0x${rva.toString(16)}) runs past the end of the file: only ${have} bytes are present`,
      );
    }
    if (duplicate) warn(`stream ${name} appears more than once; the first copy is used`);
    streams.push({ index, type, name, size, rva, truncated, duplicate });
  }
  if (streams.length === 0) {
    throw new BadDumpError(
      file,
      `${file}: all ${entries} stream directory entries are empty; the directory is zeroed or corrupt`,
    );
  }
  return streams;
}
