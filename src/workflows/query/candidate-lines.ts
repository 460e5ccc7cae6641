// The lines of a records file that a search could match, found in the raw bytes before any
// JSON is read (most lines of a large run fail the look), memory bounded by the longest line
// whatever the file's size. Handed over a window (~64 KiB of whole lines) at a time: one await
// per line cost `query` more than reading the file (bench/query.ts, CPU profile).
import { isAscii } from 'node:buffer';
import { open } from 'node:fs/promises';
import { IoError } from '../../errors.js';

/** Counted as the lines are read. */
export interface LineCounts {
  lines: number;
}

/** Longest line read (a record of a 20,000-thread dump is well under it). */
const MAX_LINE_BYTES = 64 << 20;
const READ_BYTES = 1 << 20;
/** The text searched at a time: whole lines, about this many bytes. */
const WINDOW_BYTES = 64 << 10;
const NEWLINE = 0x0a;
/** A byte that is not ASCII, in latin1 text: the start or the rest of a UTF-8 sequence. */
const NOT_ASCII = /[\x80-\xff]/;

/**
 * The lines of a file (1 MiB reads, each line at most MAX_LINE_BYTES) that `finder` matches, or
 * all of them without one, a window at a time (windows with no such line are skipped);
 * `counts.lines` counts every line of a window before its lines are handed over. The bytes are
 * searched as latin1 text (one character per byte, so offsets are the buffer's): Node 20 decodes
 * 300 MB of UTF-8 in 1.6-4.4 s, of latin1 in 0.2-0.5 s (bench/query.ts), and the finder must hold
 * only ASCII, which reads the same in either decoding. Only the lines the finder hits are decoded
 * as UTF-8, and only when they hold a byte above 0x7f. Two buffers are read into in turn, the
 * next read running while the lines of the last are searched: a fresh 1 MiB buffer and a 1 MiB
 * string (V8's large-object space) for each read cost more in page faults than the reads
 * themselves, 64 KiB reads each waited for the thread pool (bench/query.ts, CPU profile), and a
 * read waited for before the search cost a tenth of the search's time in waiting.
 */
export async function* candidateLines(
  path: string,
  finder: RegExp | undefined,
  counts: LineCounts,
  signal?: AbortSignal,
): AsyncGenerator<string[]> {
  const file = await open(path, 'r');
  /** Read into in turn: the one searched, and the one the next read fills meanwhile. */
  let current = Buffer.allocUnsafe(READ_BYTES);
  let other = Buffer.allocUnsafe(READ_BYTES);
  const readInto = (buffer: Buffer, position: number) => {
    const read = file.read(buffer, 0, READ_BYTES, position);
    // Its failure is thrown where it is awaited, not as an unhandled rejection meanwhile.
    read.catch(() => undefined);
    return read;
  };
  let position = 0;
  let next: ReturnType<typeof readInto> | undefined = readInto(current, 0);
  try {
    /** The start of a line that the reads so far have not ended (copies: the buffers are reused). */
    let rest: Buffer[] = [];
    let restBytes = 0;
    for (; ; [current, other] = [other, current]) {
      signal?.throwIfAborted();
      const { bytesRead } = await next;
      next = undefined;
      if (bytesRead === 0) break;
      position += bytesRead;
      next = readInto(other, position);
      const bytes = current.subarray(0, bytesRead);
      const last = bytes.lastIndexOf(NEWLINE);
      if (last < 0) {
        rest.push(Buffer.from(bytes));
        restBytes += bytesRead;
        if (restBytes > MAX_LINE_BYTES) throw new IoError(`${path}: a line longer than 64 MiB`);
        continue;
      }
      let from = 0;
      if (restBytes > 0) {
        // The line across reads, on its own.
        from = bytes.indexOf(NEWLINE) + 1;
        rest.push(bytes.subarray(0, from));
        yield* windows(Buffer.concat(rest), finder, counts);
        rest = [];
        restBytes = 0;
      }
      if (last >= from) yield* windows(bytes.subarray(from, last + 1), finder, counts);
      if (last + 1 < bytesRead) {
        rest = [Buffer.from(bytes.subarray(last + 1))];
        restBytes = bytesRead - last - 1;
      }
    }
    if (restBytes > 0) yield* windows(Buffer.concat([...rest, Buffer.from('\n')]), finder, counts);
  } finally {
    // A read still running is waited for: the file is not closed under it.
    await next?.catch(() => undefined);
    await file.close();
  }
}

/** The lines of `bytes` (whole lines, each ending in a newline) that `finder` matches. */
function* windows(
  bytes: Buffer,
  finder: RegExp | undefined,
  counts: LineCounts,
): Generator<string[]> {
  for (let from = 0; from < bytes.length;) {
    let to = bytes.length;
    if (from + WINDOW_BYTES < to) {
      to = bytes.lastIndexOf(NEWLINE, from + WINDOW_BYTES) + 1;
      // A line longer than the window: the window is that line.
      if (to <= from) to = bytes.indexOf(NEWLINE, from + WINDOW_BYTES) + 1;
    }
    const lines = windowLines(bytes.subarray(from, to), finder, counts);
    if (lines.length > 0) yield lines;
    from = to;
  }
}

/** The lines of `bytes` (whole lines) that `finder` matches, searched as one latin1 text. */
function windowLines(bytes: Buffer, finder: RegExp | undefined, counts: LineCounts): string[] {
  const text = bytes.toString('latin1');
  // Counted in the text: a Buffer's indexOf costs a call into C++ for each line.
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) counts.lines++;
  const ascii = isAscii(bytes);
  const line = (start: number, end: number): string => {
    const latin1 = text.slice(start, end);
    return ascii || !NOT_ASCII.test(latin1) ? latin1 : bytes.toString('utf8', start, end);
  };
  const lines: string[] = [];
  if (finder === undefined) {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      lines.push(line(start, end));
      start = end + 1;
    }
    return lines;
  }
  finder.lastIndex = 0;
  for (let hit = finder.exec(text); hit !== null; hit = finder.exec(text)) {
    const start = text.lastIndexOf('\n', hit.index) + 1;
    const end = text.indexOf('\n', hit.index);
    lines.push(line(start, end));
    finder.lastIndex = end + 1;
  }
  return lines;
}
