// `cdb-harness query`: search the records of one or more analyze output folders
// (records.ndjson) by any frame, module, exception code or bucket, not only by what went into a
// signature (Socorro's "search by a frame that is not in the signature", mozilla/socorro#3005).
// Streamed: one line at a time, a cheap look at the raw line before any JSON is parsed (most
// lines of a large run fail it), memory bounded by the longest line whatever the file's size.
import { isAscii } from 'node:buffer';
import { existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { IoError, UsageError } from '../../errors.js';
import type { AnalyzeDumpRecord, AnalyzeFrame } from '../../report/analyze/analyze-record.js';
import { RECORDS_FILE } from '../../report/analyze/records-file.js';
import { frameText } from '../../report/analyze/signature.js';
import { normalizeModuleName } from '../../report/analyze/skip-modules.js';
import { readRecordLine, type QueriedRecord, type RecordLine } from './record-line.js';

export type { QueriedRecord };

/** What a record must have; every criterion given must hold (AND). */
export interface QueryCriteria {
  /** Text in any frame (`module!function`, `module+0xoff`), any case: `store_value`, `av+0x154a`. */
  frame?: string;
  /** A module any frame lies in, or the dump loaded: `ntdll`, `KERNELBASE.dll`. */
  module?: string;
  /** The exception code: `0xc0000005`, `C0000005`. */
  code?: string;
  /** A bucket id (or its first digits) or text of the signature. */
  bucket?: string;
}

export interface QueryMatch {
  /** The records file the record came from. */
  source: string;
  record: QueriedRecord;
  /** The frames that matched `frame` or `module`, as text (empty without those criteria). */
  frames: string[];
}

export interface QueryStats {
  files: number;
  lines: number;
  /** Lines parsed after the raw-text look (the rest could not match). */
  parsed: number;
  matched: number;
  /** Lines that were not records (torn or edited). */
  badLines: number;
}

/** Longest line read (a record of a 20,000-thread dump is well under it). */
const MAX_LINE_CHARS = 64 << 20;

/** The records files behind the paths given: output folders, or records.ndjson files. */
export function recordFiles(paths: readonly string[]): string[] {
  if (paths.length === 0) throw new UsageError('give at least one analyze output folder');
  return paths.map((path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    const file = stat?.isDirectory() === true ? join(path, RECORDS_FILE) : path;
    if (!existsSync(file)) {
      throw new UsageError(`${path}: no ${RECORDS_FILE} (give an analyze --out folder)`);
    }
    return file;
  });
}

/** Normalized criteria, with the raw-line patterns that every matching line must contain. */
interface Compiled {
  frame?: string;
  module?: string;
  code?: string;
  bucket?: string;
  /** Case-insensitive texts a matching line holds somewhere (never a false negative). */
  raw: RegExp[];
}

function compile(criteria: QueryCriteria): Compiled {
  const raw: RegExp[] = [];
  const has = (text: string) => {
    // JSON escapes only `"`, `\` and control characters: other text appears in the line as is.
    // Only printable ASCII: the finder runs over latin1 text (candidateLines), where a character
    // above 0x7f is a byte of its UTF-8 form and would not match its other case.
    // Sample: Component0::Method0_2
    if (/^[\x20-\x7e]+$/.test(text) && !/["\\]/.test(text)) {
      raw.push(new RegExp(escape(text), 'i'));
    }
  };
  const out: Compiled = { raw };
  if (criteria.frame !== undefined && criteria.frame !== '') {
    out.frame = criteria.frame.toLowerCase();
    // `av!crash_here` is stored as "module":"av","function":"crash_here": each part apart.
    for (const part of criteria.frame.split(/[!+]/)) has(part);
  }
  if (criteria.module !== undefined && criteria.module !== '') {
    out.module = normalizeModuleName(criteria.module);
    has(out.module);
  }
  if (criteria.code !== undefined && criteria.code !== '') {
    const hex = criteria.code.trim().replace(/^0x/i, '').toLowerCase();
    if (!/^[0-9a-f]{1,8}$/.test(hex)) {
      throw new UsageError(`--code ${criteria.code}: not an exception code (0xc0000005)`);
    }
    out.code = `0x${hex.padStart(8, '0')}`;
    has(hex.padStart(8, '0'));
  }
  if (criteria.bucket !== undefined && criteria.bucket !== '') {
    out.bucket = criteria.bucket.toLowerCase();
    has(criteria.bucket);
  }
  return out;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The frames of a record the criteria name (all when none names frames), or null: no match. */
function matchRecord(line: RecordLine, q: Compiled): string[] | null {
  const { record } = line;
  if (q.code !== undefined) {
    const code = record.exception?.code.toLowerCase().replace(/^0x/, '').padStart(8, '0');
    if (code === undefined || `0x${code}` !== q.code) return null;
  }
  if (q.bucket !== undefined) {
    const bucket = record.bucket;
    if (bucket === null || bucket === undefined) return null;
    if (!bucket.id.startsWith(q.bucket) && !bucket.signature.toLowerCase().includes(q.bucket)) {
      return null;
    }
  }
  if (q.frame === undefined && q.module === undefined) return [];
  let hits: AnalyzeFrame[];
  if (q.module === undefined) hits = line.frames();
  else {
    hits = line.moduleFrames(q.module);
    // The modules the dump loaded, parsed only when no frame lies in the module.
    if (hits.length === 0 && !loaded(line.modules(), q.module)) return null;
  }
  if (q.frame !== undefined) {
    const needle = q.frame;
    hits = hits.filter((f) => texts(f).some((t) => t.includes(needle)));
    if (hits.length === 0) return null;
  }
  return hits.map(frameText);
}

function loaded(modules: AnalyzeDumpRecord['modules'] | undefined, module: string): boolean {
  return (
    modules?.list?.some((m) => normalizeModuleName(m.name) === module) === true ||
    (modules?.faulting !== undefined && normalizeModuleName(modules.faulting.name) === module)
  );
}

/** A frame as the texts a search looks in: as printed, and as `module+0xoff` from the base. */
function texts(frame: AnalyzeFrame): string[] {
  const shown = frameText(frame).toLowerCase();
  if (frame.module === undefined || frame.moduleOffset === undefined) return [shown];
  return [shown, `${normalizeModuleName(frame.module)}+${frame.moduleOffset}`.toLowerCase()];
}

/**
 * Every record of `files` that meets `criteria`, file by file in order. `stats` is filled as it
 * goes (read it when the generator is done).
 */
export async function* queryRecords(
  files: readonly string[],
  criteria: QueryCriteria,
  stats: QueryStats = { files: 0, lines: 0, parsed: 0, matched: 0, badLines: 0 },
  signal?: AbortSignal,
): AsyncGenerator<QueryMatch> {
  const q = compile(criteria);
  // The first pattern finds candidate lines in each chunk without splitting the others.
  const [first] = q.raw;
  const finder = first === undefined ? undefined : new RegExp(first.source, 'gi');
  for (const source of files) {
    stats.files++;
    for await (const text of candidateLines(source, finder, stats, signal)) {
      if (text.trim() === '') continue;
      if (!q.raw.every((pattern) => pattern.test(text))) continue;
      stats.parsed++;
      let frames: string[] | null;
      let line: RecordLine | undefined;
      try {
        line = readRecordLine(text);
        frames = line === undefined ? null : matchRecord(line, q);
      } catch {
        // A member the search reads is not valid JSON, or not of its type.
        line = undefined;
        frames = null;
      }
      if (line === undefined) {
        stats.badLines++;
        continue;
      }
      if (frames === null) continue;
      stats.matched++;
      yield { source, record: line.record, frames };
    }
  }
}

/**
 * The lines of a file (1 MiB reads into one buffer, each line at most MAX_LINE_CHARS) that
 * `finder` matches, or all of them without one; `stats.lines` counts every line. The bytes are
 * searched as latin1 text (one character per byte, so offsets are the buffer's): Node 20 decodes
 * 300 MB of UTF-8 in 1.6-4.4 s, of latin1 in 0.2-0.5 s (bench/query.ts), and the finder holds
 * only ASCII (compile()), which reads the same in either decoding. Only the lines the finder
 * hits are decoded as UTF-8, and only when they hold a byte above 0x7f. One buffer is read
 * again and again, and decoded 64 KiB at a time: a fresh 1 MiB buffer and a 1 MiB string (V8's
 * large-object space) for each read cost more in page faults than the reads themselves, and
 * 64 KiB reads each waited for the thread pool (bench/query.ts, CPU profile).
 */
async function* candidateLines(
  path: string,
  finder: RegExp | undefined,
  stats: QueryStats,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const file = await open(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    /** The start of a line that the reads so far have not ended (copies: the buffer is reused). */
    let rest: Buffer[] = [];
    let restBytes = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await file.read(chunk, 0, READ_BYTES, null);
      if (bytesRead === 0) break;
      const bytes = chunk.subarray(0, bytesRead);
      const last = bytes.lastIndexOf(NEWLINE);
      if (last < 0) {
        rest.push(Buffer.from(bytes));
        restBytes += bytesRead;
        if (restBytes > MAX_LINE_CHARS) throw new IoError(`${path}: a line longer than 64 MiB`);
        continue;
      }
      let from = 0;
      if (restBytes > 0) {
        // The line across reads, on its own.
        from = bytes.indexOf(NEWLINE) + 1;
        rest.push(bytes.subarray(0, from));
        yield* linesOf(Buffer.concat(rest), finder, stats);
        rest = [];
        restBytes = 0;
      }
      if (last >= from) yield* linesOf(bytes.subarray(from, last + 1), finder, stats);
      if (last + 1 < bytesRead) {
        rest = [Buffer.from(bytes.subarray(last + 1))];
        restBytes = bytesRead - last - 1;
      }
    }
    if (restBytes > 0) yield* linesOf(Buffer.concat([...rest, Buffer.from('\n')]), finder, stats);
  } finally {
    await file.close();
  }
}

const READ_BYTES = 1 << 20;
/** The text searched at a time: whole lines, about this many bytes. */
const WINDOW_BYTES = 64 << 10;
const NEWLINE = 0x0a;
/** A byte that is not ASCII, in latin1 text: the start or the rest of a UTF-8 sequence. */
const NOT_ASCII = /[\x80-\xff]/;

/** The lines of `bytes` (whole lines, each ending in a newline) that `finder` matches. */
function* linesOf(bytes: Buffer, finder: RegExp | undefined, stats: QueryStats): Generator<string> {
  for (let from = 0; from < bytes.length;) {
    let to = bytes.length;
    if (from + WINDOW_BYTES < to) {
      to = bytes.lastIndexOf(NEWLINE, from + WINDOW_BYTES) + 1;
      // A line longer than the window: the window is that line.
      if (to <= from) to = bytes.indexOf(NEWLINE, from + WINDOW_BYTES) + 1;
    }
    yield* windowLines(bytes.subarray(from, to), finder, stats);
    from = to;
  }
}

/** The lines of `bytes` (whole lines) that `finder` matches, searched as one latin1 text. */
function* windowLines(
  bytes: Buffer,
  finder: RegExp | undefined,
  stats: QueryStats,
): Generator<string> {
  for (let at = bytes.indexOf(NEWLINE); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) stats.lines++;
  const text = bytes.toString('latin1');
  const ascii = isAscii(bytes);
  const line = (start: number, end: number): string => {
    const latin1 = text.slice(start, end);
    return ascii || !NOT_ASCII.test(latin1) ? latin1 : bytes.toString('utf8', start, end);
  };
  if (finder === undefined) {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      yield line(start, end);
      start = end + 1;
    }
    return;
  }
  finder.lastIndex = 0;
  for (let hit = finder.exec(text); hit !== null; hit = finder.exec(text)) {
    const start = text.lastIndexOf('\n', hit.index) + 1;
    const end = text.indexOf('\n', hit.index);
    yield line(start, end);
    finder.lastIndex = end + 1;
  }
}
