// The watch outputs as types: one `exceptions.ndjson` line per stop and `summary.json`
// (records.md "watch"; field names are the published API, schemas/watchException.schema.json and
// schemas/watchSummary.schema.json describe them).
import type { ModuleSymbolStatus } from '../../processor/process-state.js';
import type { AnalyzeBucketRef } from '../../report/analyze/analyze-record.js';
import type { DialectName } from '../../engine/dialects/index.js';

export type WatchAction = 'dumped' | 'skipped';

/**
 * Why a stop did not produce a dump:
 * - `not-selected`: a first chance the user did not ask to break on (winedbg breaks on every first
 *   chance, so the harness passes these on at once);
 * - `filter`: --include/--exclude said no;
 * - `skip`: one of the first --skip N matches;
 * - `max-dumps`: --max-dumps reached;
 * - `bucket-seen`: --once-per-bucket and this signature was dumped before;
 * - `dump-failed`: the debugger could not write it (see dumpError);
 * - `not-exception`: a stop that is not an exception (break-in, breakpoint, process exit);
 * - `watch-ended`: (.NET on Linux) a matching exception whose event arrived after the watch began
 *   to end (Ctrl-C, --duration, the target exiting): logged, not dumped.
 */
export type WatchSkipReason =
  | 'not-selected'
  | 'filter'
  | 'skip'
  | 'max-dumps'
  | 'bucket-seen'
  | 'dump-failed'
  | 'not-exception'
  | 'watch-ended';

export interface WatchExceptionLine {
  /** ISO 8601 time the stop's prompt arrived. */
  time: string;
  /** 1-based number of this stop in the session. */
  index: number;
  chance: 'first' | 'second' | null;
  code: string | null;
  description?: string;
  threadId?: string;
  /** Where it happened (`0x…`), when the debugger said. */
  address?: string;
  parameters?: string[];
  clrType?: string;
  clrMessage?: string;
  hresult?: string;
  innerExceptions?: { type: string; address?: string }[];
  /** Top frames, `module!function+0x…`, top first. */
  frames: string[];
  /**
   * The live signature, in analyze's grammar (cdbh-sig-3, from the debugger's frames): decides
   * --once-per-bucket before any dump exists.
   */
  signature: string;
  /**
   * For a dumped exception: the dump's analyze bucket (same algorithm and id as `analyze` gives
   * that dump with the same symbols and images; src/workflows/analyze/dump-bucket.ts).
   */
  bucket?: AnalyzeBucketRef;
  /** The images the bucket's walk used, by module (`dump`, a path, `not found`). */
  images?: Record<string, string>;
  /** The symbol files the bucket's walk used, per module, or why none. */
  symbols?: ModuleSymbolStatus[];
  matched: boolean;
  /** The include that matched, `*` with no includes, or the exclude that vetoed. */
  matchedBy?: string;
  action: WatchAction;
  reason?: WatchSkipReason;
  dumpPath?: string;
  dumpVerified?: boolean;
  dumpBytes?: number;
  dumpError?: string;
  /** From the stop's prompt to our resume command: how long the harness held the target. */
  suspendedMs: number;
  /** Of suspendedMs: time spent identifying (`.lastevent`, `.exr -1`, `!pe`, stacks). */
  identifyMs?: number;
  /** Of suspendedMs: time spent writing and verifying the dump. */
  dumpMs?: number;
  /**
   * The debugger's own delivery: from our resume command to this stop's prompt (includes the
   * target's run time until it raised); not counted in suspendedMs.
   */
  eventDeliveryMs?: number;
  /** Identification steps that failed (SOS not loaded, a timed-out command…). */
  notes?: string[];
  /**
   * .NET on Linux (engine dotnet-diag): the event's number in the runtime's session (1-based; a gap
   * is a lost event), the ExceptionThrown flags (`hasInnerException`, `nested`, `rethrown`,
   * `corruptedState`), and for a dump how long after the throw it started: the target is not
   * stopped at the throw there.
   */
  eventSeq?: number;
  exceptionFlags?: string[];
  dumpStartAfterThrowMs?: number;
}

/** The engines a watch runs with: the debuggers, and the .NET diagnostics channel on Linux. */
export type WatchEngine = DialectName | 'dotnet-diag';

export type WatchEndReason = 'duration' | 'aborted' | 'target-exited' | 'max-dumps' | 'error';

export interface WatchSummary {
  schemaVersion: 1;
  engine: WatchEngine;
  process: { name?: string; pid?: number };
  startedAt: string;
  endedAt: string;
  durationMs: number;
  exceptions: number;
  dumps: number;
  /** Stops per signature. */
  bySignature: Record<string, number>;
  byReason: Partial<Record<WatchSkipReason, number>>;
  totalSuspendedMs: number;
  medianSuspendedMs: number | null;
  detached: boolean;
  /** false when the harness could not confirm; null when the target exited by itself. */
  targetAlive: boolean | null;
  endReason: WatchEndReason;
  error?: { code: string; message: string };
  outDir: string;
  logPath: string;
  dumpPaths: string[];
  signatureAlgorithm: string;
  /** .NET on Linux: events the runtime dropped (its session buffer full); 0 means none lost. */
  eventsLost?: number;
}
