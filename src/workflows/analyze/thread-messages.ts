// What the batch's thread and an analyze thread say to each other (analyze-threads.ts ↔
// analyze-thread.ts): plain data only, as structured clone carries it. A batch is a number, so a
// thread kept between two batches never mixes their dumps; a dump is a sequence number within it.
// Dumps go out, and their answers come back, several to a message: each message wakes the other
// thread's event loop and is copied through a port, and at ~1,000 dumps/s one message per dump
// each way cost the batch's thread ~0.3 ms of CPU per dump (10,000 example dumps, --threads 1,
// CPU ticks per thread from /proc/PID/task/*/stat).
import type { ErrorJSON } from '../../errors.js';
import type { ListEdits } from '../../report/analyze/signature-lists.js';
import type { BuiltinSymbolOptions } from './symbols-setup.js';
import type { RecordStatus } from './input-outcome.js';

/** Everything a thread needs to build its own supplier, signer and per-input context. */
export interface ThreadBatchConfig {
  /** The supplier's options without functions (no `symbolFetch`, no callbacks, no signal). */
  symbols: Omit<BuiltinSymbolOptions, 'signal' | 'symbolFetch' | 'onSymbolServerDown'>;
  skipModules?: readonly string[];
  signatureLists?: ListEdits;
  walkStacks?: boolean;
  outDir: string;
  timeoutMs: number;
  /**
   * Each dump's deadline on a thread, from `--timeout` when given (0: none, as on the batch's own
   * thread, where the builtin engine has no deadline); a thread past it is ended.
   */
  deadlineMs: number;
  validateRecords: boolean;
  shard?: { index: number; count: number };
  maxDumpBytes?: number;
  /** `--resume`: the keys already done (sent once per batch, not asked per dump). */
  done?: readonly string[];
}

export type ThreadRequest =
  | { type: 'batch'; batch: number; config: ThreadBatchConfig }
  /** `path`: text, or the exact bytes of a name that is not valid UTF-8. */
  | { type: 'dumps'; batch: number; dumps: { seq: number; path: string | Uint8Array }[] }
  | { type: 'abort'; batch: number }
  | { type: 'end'; batch: number };

export type ThreadReply =
  /** The thread's modules are loaded: its dump deadlines start counting. */
  | { type: 'ready' }
  /** Answers about dumps, in the order the thread gave them. */
  | { type: 'answers'; answers: DumpAnswer[] }
  | { type: 'server-down'; batch: number; server: string; reason: string }
  /** The batch's supplier is closed: the thread holds no file of it any more. */
  | { type: 'ended'; batch: number };

/** What a thread says about one dump. */
export type DumpAnswer =
  | {
      type: 'outcome';
      batch: number;
      seq: number;
      status: 'skipped-shard' | 'skipped-resume';
      /** How long the thread took over it (the dump deadline is checked against it too). */
      ms: number;
    }
  | {
      type: 'outcome';
      batch: number;
      seq: number;
      status: RecordStatus;
      /** The record's records.ndjson line, bounded and checked. */
      json: string;
      analyzed: boolean;
      ms: number;
    }
  /** The batch was aborted before this dump's record was complete: nothing to write. */
  | { type: 'stopped'; batch: number; seq: number }
  /** What stops the batch (not the dump's fault): the batch's thread rethrows it. */
  | { type: 'fatal'; batch: number; seq: number; error: ErrorJSON };
