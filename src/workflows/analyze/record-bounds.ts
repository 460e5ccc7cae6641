// Every record under a size bound. A hostile dump once produced a 115 MB record (1.2 million
// warnings) and a fuzzed 166 KB dump one of 15.7 MB: one line of records.ndjson must stay small
// enough that the summary, the report and `tail -f` handle any batch. Warnings are capped per kind
// (warning-log.ts), frames by count, then long strings are cut; a record still over the bound
// becomes a failed record that says why, with its identity (file, sha256) kept for --resume.
import { capWarnings } from '../../warning-log.js';
import type { AnalyzeDumpRecord } from '../../report/analyze/analyze-record.js';

/** The largest record line written (bytes of JSON). */
export const MAX_RECORD_BYTES = 256 * 1024;
/** Frames kept per record: far more than any signature or reader needs. */
export const MAX_RECORD_FRAMES = 256;
/** Modules listed per record (processes load a few hundred; the count stays exact). */
export const MAX_RECORD_MODULES = 1024;
/** Strings longer than this are cut when a record is still too big. */
const LONG_STRING = 1024;

/** The record as written: bounded in warnings, frames and total size. */
export function boundRecord(record: AnalyzeDumpRecord): AnalyzeDumpRecord {
  return boundRecordJson(record).record;
}

/**
 * boundRecord, with the JSON text of the record it returns: the size check already made it, and
 * the writer can use it instead of serialising the record a second time.
 */
export function boundRecordJson(record: AnalyzeDumpRecord): {
  record: AnalyzeDumpRecord;
  json: string;
} {
  record.warnings = capWarnings(record.warnings);
  if (record.frames.length > MAX_RECORD_FRAMES) {
    record.warnings.push(
      `frames: ${record.frames.length} frames, only the first ${MAX_RECORD_FRAMES} are kept`,
    );
    record.frames = record.frames.slice(0, MAX_RECORD_FRAMES);
  }
  const list = record.modules.list;
  if (list !== undefined && list.length > MAX_RECORD_MODULES) {
    record.warnings.push(
      `modules: ${list.length} modules, only the first ${MAX_RECORD_MODULES} are listed`,
    );
    record.modules = { ...record.modules, list: list.slice(0, MAX_RECORD_MODULES) };
  }
  let json = JSON.stringify(record);
  let size = jsonBytes(json);
  if (size <= MAX_RECORD_BYTES) return { record, json };
  const cut = cutLongStrings(record) as AnalyzeDumpRecord;
  cut.warnings.push(
    `the record was ${size} bytes (bound ${MAX_RECORD_BYTES}): strings longer than ${LONG_STRING} characters were cut`,
  );
  json = JSON.stringify(cut);
  size = jsonBytes(json);
  if (size <= MAX_RECORD_BYTES) return { record: cut, json };
  const refused = identityOnly(
    record,
    `the record for this dump would be ${size} bytes, over the ${MAX_RECORD_BYTES}-byte bound; only its identity is kept`,
  );
  return { record: refused, json: JSON.stringify(refused) };
}

/** A record that keeps only what identifies the dump, failed with OUTPUT_LIMIT and `message`. */
export function identityOnly(record: AnalyzeDumpRecord, message: string): AnalyzeDumpRecord {
  return {
    schemaVersion: record.schemaVersion,
    file: record.file,
    ...(record.fileBytes === undefined ? {} : { fileBytes: record.fileBytes }),
    fileSize: record.fileSize,
    size: record.size,
    sha256: record.sha256,
    ok: false,
    attempts: record.attempts,
    engine: record.engine,
    dumpKind: record.dumpKind,
    process: {},
    exception: null,
    frames: [],
    modules: { count: record.modules.count, withDebugId: 0, withoutDebugId: 0 },
    notAvailable: [],
    rawOutputs: [],
    timings: record.timings,
    warnings: [],
    bucket: null,
    error: { code: 'OUTPUT_LIMIT', message },
  };
}

/**
 * The UTF-8 length of `json`, or its UTF-16 length when even three bytes a code unit (UTF-8's
 * most for one) keep it under the bound: the usual record (a few KB) is never encoded to count.
 */
function jsonBytes(json: string): number {
  return json.length * 3 <= MAX_RECORD_BYTES ? json.length : Buffer.byteLength(json);
}

function cutLongStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length > LONG_STRING ? `${value.slice(0, LONG_STRING)}… (cut)` : value;
  }
  if (Array.isArray(value)) return value.map(cutLongStrings);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutLongStrings(v)]));
  }
  return value;
}
