// `cdb-harness query`: search the records of one or more analyze output folders
// (records.ndjson) by any frame, module, exception code or bucket, not only by what went into a
// signature (Socorro's "search by a frame that is not in the signature", mozilla/socorro#3005).
// Streamed: a cheap look at the raw lines before any JSON is parsed (most lines of a large run
// fail it; candidate-lines.ts), memory bounded by the longest line whatever the file's size.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { AnalyzeDumpRecord, AnalyzeFrame } from '../../report/analyze/analyze-record.js';
import { RECORDS_FILE } from '../../report/analyze/records-file.js';
import { frameText } from '../../report/analyze/signature.js';
import { normalizeModuleName } from '../../report/analyze/skip-modules.js';
import { candidateLines } from './candidate-lines.js';
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
  stats?: QueryStats,
  signal?: AbortSignal,
): AsyncGenerator<QueryMatch> {
  for await (const matches of queryRecordBatches(files, criteria, stats, signal)) yield* matches;
}

/**
 * queryRecords a few at a time: the matches among the lines of one window of a file (~64 KiB;
 * candidate-lines.ts), in order. `stats.lines` has counted the lines of that window when its
 * matches come: one await per match cost a search that matches every record a tenth of its time.
 */
export async function* queryRecordBatches(
  files: readonly string[],
  criteria: QueryCriteria,
  stats: QueryStats = { files: 0, lines: 0, parsed: 0, matched: 0, badLines: 0 },
  signal?: AbortSignal,
): AsyncGenerator<QueryMatch[]> {
  const q = compile(criteria);
  // The first pattern finds candidate lines in each window without splitting the others.
  const [first] = q.raw;
  const finder = first === undefined ? undefined : new RegExp(first.source, 'gi');
  for (const source of files) {
    stats.files++;
    for await (const lines of candidateLines(source, finder, stats, signal)) {
      const matches: QueryMatch[] = [];
      for (const text of lines) {
        const match = matchLine(source, text, q, stats);
        if (match !== undefined) matches.push(match);
      }
      if (matches.length > 0) yield matches;
    }
  }
}

/** The match of one candidate line, or undefined; counted in `stats`. */
function matchLine(
  source: string,
  text: string,
  q: Compiled,
  stats: QueryStats,
): QueryMatch | undefined {
  if (text.trim() === '') return undefined;
  // The first pattern found the line (candidateLines): only the others are looked for.
  for (let i = 1; i < q.raw.length; i++) if (!q.raw[i]!.test(text)) return undefined;
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
    return undefined;
  }
  if (frames === null) return undefined;
  stats.matched++;
  return { source, record: line.record, frames };
}
