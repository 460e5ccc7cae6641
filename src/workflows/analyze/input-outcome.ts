// One input of a batch, start to finished line: hashed (a small dump read once, kept for the
// processor), skipped when another shard owns it or --resume already has it, else analysed,
// bounded, checked against the schema and turned into its records.ndjson line. The same steps
// whether the dump is analysed on the batch's own thread or on an analyze thread
// (analyze-thread.ts): the outcome is plain data, so a thread can hand it back as a message.
import { errorMessage, isHarnessError } from '../../errors.js';
import type { BytePath } from '../../common/byte-path.js';
import type { AnalyzeDumpRecord } from '../../report/analyze/analyze-record.js';
import { validate } from '../../report/schemas.js';
import { analyzeOneDump, fileFields, type DumpRunContext } from './analyze-one.js';
import { resumeKey, sha256File } from './file-hash.js';
import { shardOf } from './inputs.js';
import { boundRecordJson } from './record-bounds.js';
import { ioFailure, isNodeFsError } from './unreadable-dump.js';

/**
 * Dumps up to this size are read into memory once (hash, then the processor works from the
 * bytes); bigger ones are streamed and read on demand. Bounded: at most `jobs` such buffers live.
 */
export const KEEP_DUMP_BYTES = 2 * 1024 * 1024;

export interface InputRunContext {
  dump: DumpRunContext;
  /** `--shard I/N`: inputs whose hash falls in another shard are skipped. */
  shard?: { index: number; count: number };
  /** `--resume`: keys (file-hash.ts resumeKey) of the dumps records.ndjson already has. */
  done?: ReadonlySet<string>;
  /** Check each record against the schema (a mismatch becomes a warning: analyze.ts). */
  validateRecords: boolean;
  /** `--max-dump-size`: bigger files get a failed record at once (file-hash.ts). */
  maxDumpBytes?: number;
}

export type RecordStatus = 'ok' | 'failed' | 'quarantined';

export type InputOutcome =
  | { status: 'skipped-shard' | 'skipped-resume' }
  | {
      status: RecordStatus;
      record: AnalyzeDumpRecord;
      /** The record's line (without the newline); undefined: the appender stringifies it. */
      json: string | undefined;
      /** False for a file that could not be read at all (not counted as analysed). */
      analyzed: boolean;
    };

/**
 * The outcome of one input. Throws only what stops the batch: an abort (AbortedError, or any
 * error once `ctx.dump.signal` is aborted) and what is not the dump's fault (no debugger).
 */
export async function analyzeInput(path: BytePath, ctx: InputRunContext): Promise<InputOutcome> {
  const dumpCtx = ctx.dump;
  try {
    // A small dump is read once: hashed, then read by the processor from the same bytes.
    const hashed = await sha256File(path, dumpCtx.signal, {
      keepUpTo: dumpCtx.engine === 'builtin' ? KEEP_DUMP_BYTES : 0,
      ...(ctx.maxDumpBytes === undefined ? {} : { maxBytes: ctx.maxDumpBytes }),
    });
    if (ctx.shard !== undefined && shardOf(hashed.sha256, ctx.shard.count) !== ctx.shard.index) {
      return { status: 'skipped-shard' };
    }
    if (ctx.done?.has(resumeKey({ ...fileFields(path), ...hashed })) === true) {
      return { status: 'skipped-resume' };
    }
    const bounded = boundRecordJson(await analyzeOneDump(path, hashed, dumpCtx));
    const record = bounded.record;
    let json: string | undefined = bounded.json;
    if (ctx.validateRecords) {
      const check = validate('analyzeRecord', record);
      if (!check.ok) {
        record.warnings.push(`record schema: ${check.errors.join('; ')}`);
        json = undefined; // the text no longer says what the record does
      }
    }
    return { status: recordStatus(record), record, json, analyzed: true };
  } catch (error) {
    if (dumpCtx.signal?.aborted === true) throw error;
    const ioMessage =
      isHarnessError(error) && error.code === 'IO'
        ? error.shortMessage
        : isNodeFsError(error)
          ? errorMessage(error)
          : undefined;
    if (ioMessage === undefined) throw error;
    // An unreadable file (permissions, vanished) is that file's problem, not the batch's.
    const record = ioFailure(path, ioMessage, dumpCtx.engine);
    return { status: 'failed', record, json: undefined, analyzed: false };
  }
}

export function recordStatus(record: AnalyzeDumpRecord): RecordStatus {
  return record.ok ? 'ok' : record.quarantined === true ? 'quarantined' : 'failed';
}

/**
 * The `dump` event of a record. Its `record` is a plain property: the batch has parsed it already
 * (an analyze thread's record arrives as its line; the summary and the report read every one), and
 * a getter made per dump (`Object.defineProperty(event, 'record', { get })`) kept the record and
 * its outcome alive through every scavenge until a full GC (DumpImageSet in image-locator.ts
 * says how that was measured).
 */
export function dumpEvent(
  fields: { file: string; status: RecordStatus; done: number; total: number },
  outcome: Extract<InputOutcome, { record: unknown }>,
): {
  type: 'dump';
  file: string;
  status: RecordStatus;
  done: number;
  total: number;
  record: AnalyzeDumpRecord;
} {
  return { type: 'dump', ...fields, record: outcome.record };
}
