// What a worker hands BullMQ as a job's result, and how the collector reads it back. Redis holds
// each result twice (the job's hash and the `completed` entry of the events stream, both kept for
// days), so the result is bounded before it goes there: the record is first bounded exactly as a
// local run bounds it (record-bounds.ts, at most 256 KB of JSON), then a record of more than
// INLINE_BYTES is gzipped, and a packed result over MAX_RESULT_BYTES is replaced by its
// identity and the reason. The result also says who made it (worker, version, engine, job format),
// so a record can be traced to the worker that wrote it.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { AnalyzeDumpRecord, AnalyzeEngineName } from '../report/analyze/analyze-record.js';
import {
  boundRecordJson,
  identityOnly,
  MAX_RECORD_BYTES,
} from '../workflows/analyze/record-bounds.js';

/** The shape of JobResult; results written before it existed are plain records. */
export const RESULT_FORMAT = 2;
/** Records of up to this many bytes of JSON go into Redis as they are (the usual few KB). */
export const INLINE_BYTES = 16 * 1024;
/** The most one job result may hold in Redis, packed (Redis keeps it twice: hash and events). */
export const MAX_RESULT_BYTES = 24 * 1024;

export interface ResultMaker {
  /** The worker's Redis client name: `ENGINE-HOST-PID`. */
  worker: string;
  /** The cdb-harness version the worker runs. */
  version: string;
  engine: AnalyzeEngineName;
  /** The job format the worker reads (queue-job.ts JOB_FORMAT). */
  jobFormat: number;
}

export type JobResult = {
  resultFormat: typeof RESULT_FORMAT;
  by: ResultMaker;
} & (
  | { record: AnalyzeDumpRecord }
  /** The record's JSON, gzipped, base64 (`bytes`: its length unpacked). */
  | { gzip: string; bytes: number }
);

/**
 * The result for `record` (bounded first, as a local run bounds it): at most MAX_RESULT_BYTES in
 * Redis. `record` is the record the result holds.
 */
export function packResult(
  original: AnalyzeDumpRecord,
  by: ResultMaker,
): { result: JobResult; record: AnalyzeDumpRecord } {
  const { record, json } = boundRecordJson(original);
  if (json.length <= INLINE_BYTES) {
    return { result: { resultFormat: RESULT_FORMAT, by, record }, record };
  }
  const gzip = gzipSync(json, { level: 9 }).toString('base64');
  if (gzip.length <= MAX_RESULT_BYTES) {
    return {
      result: { resultFormat: RESULT_FORMAT, by, gzip, bytes: Buffer.byteLength(json) },
      record,
    };
  }
  // Rare: a record near the 256 KB bound that hardly compresses (random names of a fuzzed dump).
  const kept = identityOnly(
    record,
    `the record for this dump is ${Buffer.byteLength(json)} bytes (${gzip.length} packed), over the queue's ${MAX_RESULT_BYTES}-byte result bound; only its identity is kept (a local analyze keeps up to ${MAX_RECORD_BYTES} bytes)`,
  );
  return { result: { resultFormat: RESULT_FORMAT, by, record: kept }, record: kept };
}

export type ReadResult =
  { ok: true; record: AnalyzeDumpRecord; by?: ResultMaker } | { ok: false; reason: string };

/**
 * A job's result as Redis gave it back: a JobResult, or a plain record (workers before
 * RESULT_FORMAT). Anything else, or a packed record over the record bound, is refused with the
 * reason: the collector never trusts a size it has not checked.
 */
export function readResult(value: unknown): ReadResult {
  if (typeof value !== 'object' || value === null) {
    return { ok: false, reason: `the job's result is ${value === null ? 'null' : typeof value}` };
  }
  const result = value as Partial<{
    resultFormat: unknown;
    by: ResultMaker;
    record: unknown;
    gzip: unknown;
    bytes: unknown;
  }>;
  if (result.resultFormat === undefined) {
    return isRecordLike(value)
      ? { ok: true, record: value }
      : { ok: false, reason: 'the job result is not a record' };
  }
  if (result.resultFormat !== RESULT_FORMAT) {
    return {
      ok: false,
      reason: `the job result has format ${JSON.stringify(result.resultFormat)}`,
    };
  }
  const by = result.by;
  let record: unknown = result.record;
  if (typeof result.gzip === 'string') {
    if (result.gzip.length > MAX_RESULT_BYTES * 2) {
      return { ok: false, reason: `the packed result is ${result.gzip.length} bytes` };
    }
    try {
      const json = gunzipSync(Buffer.from(result.gzip, 'base64'), {
        // A gzip bomb stops here: a bounded record never unpacks to more.
        maxOutputLength: MAX_RECORD_BYTES * 2,
      }).toString('utf8');
      record = JSON.parse(json) as unknown;
    } catch (error) {
      return {
        ok: false,
        reason: `the packed result does not unpack: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  if (!isRecordLike(record)) return { ok: false, reason: 'the job result holds no record' };
  return { ok: true, record, ...(by === undefined ? {} : { by }) };
}

function isRecordLike(value: unknown): value is AnalyzeDumpRecord {
  const r = value as Partial<Record<string, unknown>> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.file === 'string' &&
    typeof r.sha256 === 'string' &&
    typeof r.ok === 'boolean' &&
    Array.isArray(r.warnings) &&
    Array.isArray(r.frames) &&
    typeof r.modules === 'object' &&
    r.modules !== null
  );
}
