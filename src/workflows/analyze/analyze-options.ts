// What `analyzeDumps` (analyze.ts) takes and gives: its options, the progress events it emits
// and its result. The CLI, the queue's worker and library users build these.
import type { ResourceLimits } from 'node:worker_threads';
import type {
  AnalyzeDumpRecord,
  AnalyzeError,
  AnalyzeSummary,
} from '../../report/analyze/analyze-record.js';
import type { ListEdits } from '../../report/analyze/signature-lists.js';
import type { FetchLike } from '../../symbols/index.js';
import type { RedirectPolicy } from '../../symbols/redirect-policy.js';
import type { EngineChoice, EngineRequest } from './engine-choice.js';
import type { OutputFiles } from './outputs.js';
import type { ShowPath } from '../../report/analyze/shown-paths.js';

/** Socorro kills its stackwalker after 2 minutes; cdb with cold symbols needs about that. */
export const DEFAULT_TIMEOUT_MS = 120_000;

export type AnalyzeEvent =
  | { type: 'engine'; choice: EngineChoice; script?: string; warning?: string }
  /**
   * Builtin engine: how many analyze threads help this thread (0: none) and why; said again with
   * 0 when threads were given up mid-batch (they kept dying at start).
   */
  | { type: 'threads'; threads: number; reason: string }
  | { type: 'start'; total: number; outDir: string }
  | { type: 'unmatched'; input: string }
  | {
      type: 'dump';
      file: string;
      status: 'ok' | 'failed' | 'quarantined' | 'skipped-resume' | 'skipped-shard';
      done: number;
      total: number;
      record?: AnalyzeDumpRecord;
    }
  | { type: 'retry'; file: string; error: AnalyzeError }
  | { type: 'bad-record-line'; line: number; reason: string }
  /** A symbol server given up on (after retries): once per server per run. */
  | { type: 'symbol-server-down'; server: string; reason: string }
  /** `--queue`: the queue's state in words (no worker for the engine, Redis lost and back). */
  | { type: 'queue'; message: string }
  | { type: 'finish'; summary: AnalyzeSummary };

export interface AnalyzeOptions {
  inputs: readonly string[];
  outDir: string;
  engine?: EngineRequest;
  /** Command script; default dbgscripts/triage.<dialect>.txt. Ignored by the builtin engine. */
  scriptPath?: string;
  /** Parallel workers. Default: cores for debuggers, 4 × cores for the builtin reader (I/O). */
  jobs?: number;
  /**
   * Builtin engine: analyze threads besides this one (worker_threads). Default: chosen by
   * thread-plan.ts (one per core, at most 8, for batches of MIN_DUMPS_FOR_THREADS dumps or more);
   * 0: none.
   */
  threads?: number;
  /** Builtin engine: heap limits of each analyze thread (a thread over them dies, not the run). */
  threadResourceLimits?: ResourceLimits;
  /**
   * Per-dump deadline (start, every command, close). Builtin engine: none, except on analyze
   * threads when given (a thread past it is ended and its dumps tried again alone).
   */
  timeoutMs?: number;
  /** cdb: passed as -y. builtin: PDB / Breakpad symbols found through it (else _NT_SYMBOL_PATH). */
  symbolPath?: string;
  /** builtin: where `srv*URL` keeps downloads (default ~/.cache/cdb-harness/symbols). */
  symbolCacheDir?: string;
  /** builtin: fetch for symbol servers (default the global fetch). */
  symbolFetch?: FetchLike;
  /** builtin: deadline per symbol download (default 60 s; `--symbol-timeout`). */
  symbolDownloadTimeoutMs?: number;
  /** builtin: largest symbol file downloaded or expanded (default 1 GiB; `--symbol-max-size`). */
  symbolMaxBytes?: number;
  /** builtin: which redirects a symbol download follows (default `https`; `--symbol-redirects`). */
  symbolRedirects?: RedirectPolicy;
  /** Builtin engine: directories of module images for the stack walk (`--image-path`). */
  imagePaths?: readonly string[];
  /**
   * Builtin engine: the Wine prefix whose drive_c recorded `C:\` module paths are looked up in
   * (`--wine-prefix`). Never $WINEPREFIX or ~/.wine unless named here: the bucket of a dump must
   * not depend on what the analysing machine happens to hold.
   */
  winePrefix?: string;
  /** Builtin engine: walk the crashing thread's stack (default true; false = exception frame only). */
  walkStacks?: boolean;
  resume?: boolean;
  /** Extensions a folder scan takes besides .dmp, .mdmp and .hdmp (`--ext`). */
  extensions?: readonly string[];
  shard?: { index: number; count: number };
  /** Larger dumps get a failed record at once, unread (default 64 GiB; `--max-dump-size`). */
  maxDumpBytes?: number;
  /** Bucketing skip list, added to the default one (`!name` takes a default out). */
  skipModules?: readonly string[];
  /** Signature lists (irrelevant, prefix, sentinels, skip modules) added to the defaults. */
  signatureLists?: ListEdits;
  /** Folder for engine transcripts (one JSON-lines file per dump). */
  recordDir?: string;
  signal?: AbortSignal;
  onEvent?: (event: AnalyzeEvent) => void;
  cwd?: string;
  /** Engine plumbing (tests, the cdb emulator, unusual installs). */
  debuggerPath?: string;
  debuggerCommandPrefix?: { file: string; args: readonly string[] };
  env?: NodeJS.ProcessEnv;
  /**
   * `--relative-paths`: report.html (and the result's `showPath`, for the CLI's text) shows dump
   * paths relative to the input folder holding them; records.ndjson and summary.json keep them raw.
   */
  relativePaths?: boolean;
  /**
   * Check every record against schemas/analyzeRecord.schema.json before writing it (default on;
   * a mismatch becomes a record warning, never a lost record).
   */
  validateRecords?: boolean;
}

export interface AnalyzeResult {
  summary: AnalyzeSummary;
  files: OutputFiles;
  engine: EngineChoice;
  analyzed: number;
  skipped: { resumed: number; otherShard: number };
  interrupted: boolean;
  durationMs: number;
  /** With `relativePaths`: how the reports show a dump path. */
  showPath?: ShowPath;
}
