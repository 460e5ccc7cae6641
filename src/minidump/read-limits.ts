// How much of a dump the reader will read for its structures, whatever the file claims: the
// bounds that keep a hostile directory entry or string table from turning a small file into
// gigabytes of reads or allocations. Each list stream is read only as far as its parser's entry
// cap (module-list.ts MAX_MODULES, thread-list.ts MAX_THREADS), so a 108 MB list of a million
// modules costs what 16,384 entries cost.
import { MAX_MODULES, MODULE_ENTRY_SIZE } from './streams/module-list.js';
import { MAX_THREADS } from './streams/thread-list.js';

/** Structure streams bigger than this are corrupt (a Memory64List of 4M ranges is 64 MiB). */
export const MAX_STREAM_BYTES = 64 * 1024 * 1024;

/**
 * Bytes of strings and CodeView records one dump may make the reader follow (names of modules,
 * threads, handle types…). A real dump needs well under 1 MiB; a hostile one pointing thousands of
 * entries at 64 KiB strings would otherwise turn a small file into gigabytes of text.
 */
export const MAX_REFERENCED_BYTES = 16 * 1024 * 1024;

/** Bytes of a ModuleList that hold MAX_MODULES entries (count, padding, entries). */
export const MODULE_LIST_BYTES = 8 + MAX_MODULES * MODULE_ENTRY_SIZE;

/**
 * Bytes of a ThreadList (48-byte MINIDUMP_THREAD) or ThreadExList (64-byte MINIDUMP_THREAD_EX,
 * minidumpapiset.h) that hold MAX_THREADS entries.
 */
export function threadListBytes(extended: boolean): number {
  return 8 + MAX_THREADS * (extended ? 64 : 48);
}

/**
 * How many bytes of a stream to read: what the file holds of it, no more than the parser's cap
 * (`maxBytes`), and never more than MAX_STREAM_BYTES (`implausible` says so: worth a warning).
 */
export function streamReadLength(
  stream: { rva: number; size: number },
  fileSize: number,
  maxBytes = MAX_STREAM_BYTES,
): { length: number; implausible: boolean } {
  let length = Math.max(0, Math.min(stream.size, fileSize - stream.rva));
  // A list read only as far as its parser's entry cap: the parser says what it left out.
  if (maxBytes < MAX_STREAM_BYTES) length = Math.min(length, maxBytes);
  if (length > MAX_STREAM_BYTES) return { length: MAX_STREAM_BYTES, implausible: true };
  return { length, implausible: false };
}
