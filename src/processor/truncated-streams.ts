// Is the dump whole? A file is truncated when anything it references lies past its end: a
// stream, captured memory, a module's name or CodeView record, a thread's or the exception's
// register context (a copy interrupted, a disk that filled up while the dump was written). The
// reader counts those references as it meets them (Minidump.pastEnd); the contexts are checked
// here. Stream type numbers:
// https://learn.microsoft.com/windows/win32/api/minidumpapiset/ne-minidumpapiset-minidump_stream_type
import type { Minidump } from '../minidump/minidump.js';

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

/** Notes the register contexts (threads', the exception's) that lie past the end of the file. */
export async function notePastEndContexts(dump: Minidump): Promise<void> {
  const exception = await dump.exception();
  if (exception && pastEnd(exception.context, dump.fileSize)) {
    dump.notePastEnd('exception context');
  }
  for (const thread of await dump.threads()) {
    if (pastEnd(thread.context, dump.fileSize)) dump.notePastEnd('thread contexts');
  }
}

function pastEnd(location: { size: number; rva: number }, fileSize: number): boolean {
  return location.size > 0 && location.rva + location.size > fileSize;
}

/**
 * The one line a truncated dump carries (in place of a warning per module):
 * `TRUNCATED: the file (52000 bytes) ends before what it references: 37 ModuleList strings, …`.
 */
export function truncationLine(dump: {
  fileSize: number;
  pastEnd?: Record<string, number>;
}): string | null {
  const parts = Object.entries(dump.pastEnd ?? {});
  if (parts.length === 0) return null;
  return `TRUNCATED: the file (${dump.fileSize} bytes) ends before what it references: ${parts.map(([what, n]) => `${n} ${what}`).join(', ')}; what follows is partial`;
}
