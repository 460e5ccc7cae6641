// `cdb-harness query`: search the records of one or more analyze output folders
// (records.ndjson) by any frame, module, exception code or bucket, not only by what went into a
// signature (Socorro's "search by a frame that is not in the signature", mozilla/socorro#3005).
// Streamed: one line at a time, a cheap look at the raw line before any JSON is parsed (most
// lines of a large run fail it), memory bounded by the longest line whatever the file's size.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { IoError, UsageError } from '../../errors.js';
import type { AnalyzeDumpRecord, AnalyzeFrame } from '../../report/analyze/analyze-record.js';
import { RECORDS_FILE } from '../../report/analyze/records-file.js';
import { frameText } from '../../report/analyze/signature.js';
import { normalizeModuleName } from '../../report/analyze/skip-modules.js';

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
  record: AnalyzeDumpRecord;
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
    if (text !== '' && !/["\\\p{Cc}]/u.test(text)) raw.push(new RegExp(escape(text), 'i'));
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
function matchRecord(record: AnalyzeDumpRecord, q: Compiled): string[] | null {
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
  const frames = allFrames(record);
  let hits: AnalyzeFrame[] = frames;
  if (q.module !== undefined) {
    const module = q.module;
    hits = hits.filter((f) => f.module !== undefined && normalizeModuleName(f.module) === module);
    const loaded =
      record.modules?.list?.some((m) => normalizeModuleName(m.name) === module) === true ||
      (record.modules?.faulting !== undefined &&
        normalizeModuleName(record.modules.faulting.name) === module);
    if (hits.length === 0 && !loaded) return null;
  }
  if (q.frame !== undefined) {
    const needle = q.frame;
    hits = hits.filter((f) => texts(f).some((t) => t.includes(needle)));
    if (hits.length === 0) return null;
  }
  return q.frame === undefined && q.module === undefined ? [] : hits.map(frameText);
}

/** The faulting thread's frames, and a managed exception's stack as frames of their own. */
function allFrames(record: AnalyzeDumpRecord): AnalyzeFrame[] {
  const managed = record.clrException?.exceptions.flatMap((e) =>
    e.stack.map((f) => ({ function: f.function })),
  );
  return managed === undefined || managed.length === 0
    ? record.frames
    : [...record.frames, ...managed];
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
    for await (const line of candidateLines(source, finder, stats, signal)) {
      if (line.trim() === '') continue;
      if (!q.raw.every((pattern) => pattern.test(line))) continue;
      stats.parsed++;
      let record: AnalyzeDumpRecord;
      try {
        record = JSON.parse(line) as AnalyzeDumpRecord;
      } catch {
        stats.badLines++;
        continue;
      }
      if (typeof record !== 'object' || record === null || !Array.isArray(record.frames)) {
        stats.badLines++;
        continue;
      }
      const frames = matchRecord(record, q);
      if (frames === null) continue;
      stats.matched++;
      yield { source, record, frames };
    }
  }
}

/**
 * The lines of a file (1 MiB reads, each line at most MAX_LINE_CHARS) that `finder` matches, or
 * all of them without one; `stats.lines` counts every line. A chunk's lines are never split
 * unless asked for: the finder runs over the whole chunk and each hit yields its own line.
 */
async function* candidateLines(
  path: string,
  finder: RegExp | undefined,
  stats: QueryStats,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const stream = createReadStream(path, {
    encoding: 'utf8',
    highWaterMark: 1 << 20,
    ...(signal === undefined ? {} : { signal }),
  });
  let rest = '';
  for await (const chunk of stream as AsyncIterable<string>) {
    const last = chunk.lastIndexOf('\n');
    if (last < 0) {
      rest += chunk;
      if (rest.length > MAX_LINE_CHARS) throw new IoError(`${path}: a line longer than 64 MiB`);
      continue;
    }
    const text = rest + chunk.slice(0, last + 1);
    rest = chunk.slice(last + 1);
    yield* linesOf(text, finder, stats);
  }
  if (rest !== '') yield* linesOf(`${rest}\n`, finder, stats);
}

/** The lines of `text` (whole lines, each ending in a newline) that `finder` matches. */
function* linesOf(text: string, finder: RegExp | undefined, stats: QueryStats): Generator<string> {
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) stats.lines++;
  if (finder === undefined) {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      yield text.slice(start, end);
      start = end + 1;
    }
    return;
  }
  finder.lastIndex = 0;
  for (let hit = finder.exec(text); hit !== null; hit = finder.exec(text)) {
    const start = text.lastIndexOf('\n', hit.index) + 1;
    const end = text.indexOf('\n', hit.index);
    yield text.slice(start, end);
    finder.lastIndex = end + 1;
  }
}
