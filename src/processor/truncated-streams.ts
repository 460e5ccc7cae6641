// Which structure streams of a dump run past the end of its file: the dump was cut short (a copy
// interrupted, a disk that filled up while it was written), so what the reader says about those
// streams is missing or partial. Memory lists (MemoryListStream 5, Memory64ListStream 9) are left
// out: a full dump whose memory was cut is still worth a look, and the reader counts its missing
// bytes. Stream type numbers: https://learn.microsoft.com/windows/win32/api/minidumpapiset/ne-minidumpapiset-minidump_stream_type

const MEMORY_STREAMS = new Set([5, 9]);

/** Names of the structure streams that end beyond the file (empty when the file is whole). */
export function truncatedStreams(dump: {
  streams: readonly { type: number; rva: number; size: number; name: string }[];
  fileSize: number;
}): string[] {
  return dump.streams
    .filter((s) => !MEMORY_STREAMS.has(s.type) && s.rva + s.size > dump.fileSize)
    .map((s) => s.name);
}
