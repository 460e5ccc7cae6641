// The analyze outputs as types: one `AnalyzeDumpRecord` per dump (a line of records.ndjson) and
// the `AnalyzeSummary` (summary.json). Field names follow docs/records.md "Workflow
// outputs" and are published API: add fields, never rename. The JSON Schemas
// (schemas/analyzeRecord.schema.json, schemas/analyzeSummary.schema.json) describe the same shapes.
import type { AssertionInfo } from '../../minidump/streams/assertion-info.js';
import type { DialectName } from '../../engine/dialects/index.js';
import type { InspectedClr, InspectedClrException } from '../../processor/clr.js';
import type { ListEdits } from './signature-lists.js';
import type {
  AnalyzeRecord,
  ClrStackRecord,
  DumpHeapStatRecord,
  HeapSummaryRecord,
  Hex,
  PrintExceptionRecord,
} from '../../parsers/records.js';

export type AnalyzeEngineName = DialectName | 'builtin';

/** A frame of the faulting thread. `module!function+0xoff` in parts; any part may be unknown. */
export interface AnalyzeFrame {
  module?: string;
  function?: string;
  /** Offset from the function when known, else from the module base. */
  offset?: Hex;
  address?: Hex;
  source?: string;
  /**
   * How the frame was found: `debugger` (a debugger's `k`), `exception` (the exception address:
   * frame 0), and from the builtin walker `context`, `cfi` (unwind data), `frame-pointer`,
   * `leaf` (x64: the word at RSP, frame 0 taken as a leaf function), `scan-call` (a stack word
   * just after a call) or `scan` (a stack word pointing into a module).
   */
  trust?:
    'exception' | 'debugger' | 'context' | 'cfi' | 'frame-pointer' | 'leaf' | 'scan-call' | 'scan';
  /** Offset from the module base (builtin walker), whatever `offset` is measured from. */
  moduleOffset?: Hex;
  /** The frame's stack pointer (builtin walker). */
  stackPointer?: Hex;
  /**
   * An inlined call (WinDbg's `(Inline Function)` row): no frame of its own on the stack, it
   * shares the address and stack pointer of the next frame that is not inline, the function the
   * compiler copied it into. From a PDB's S_INLINESITE records (builtin walker) or cdb's `k`.
   */
  inline?: true;
}

export interface AnalyzeException {
  code: Hex;
  name: string;
  address?: Hex;
  /** Thread id as the dump stores it (a number) or as a debugger printed it (`0x…`). */
  threadId?: number | Hex;
  chance?: 'first' | 'second';
  /** Access violations: what the faulting instruction tried, and where (exception parameters). */
  accessType?: 'read' | 'write' | 'execute';
  accessAddress?: Hex;
  flags?: Hex;
  parameters?: Hex[];
  /** CLR exceptions: the HRESULT (parameter 0) and the raising runtime, from the dump's record. */
  clr?: InspectedClrException;
  /** Registers at the exception (`rip` → `0x…`), when the engine recovered the context. */
  registers?: Record<string, Hex>;
}

export interface AnalyzeModuleInfo {
  name: string;
  base?: Hex;
  path?: string;
  fileVersion?: string;
  /** PE TimeDateStamp as ISO 8601, and as written (seconds since 1970). */
  timestamp?: string;
  timestampEpoch?: number;
  debugId?: string;
}

export interface AnalyzeModules {
  count: number;
  withDebugId: number;
  withoutDebugId: number;
  /** The module holding the exception address (or the first relevant frame), when known. */
  faulting?: AnalyzeModuleInfo;
  /** Every loaded module in load order, with its file version when the dump has it. */
  list?: { name: string; fileVersion?: string }[];
}

/** `!analyze -v` key fields (the parser's `analyze` record), when the engine has them. */
export type AnalyzeKeyFields = Pick<
  AnalyzeRecord,
  | 'failureBucketId'
  | 'bucketId'
  | 'symbolName'
  | 'moduleName'
  | 'imageName'
  | 'faultingFrame'
  | 'processName'
  | 'exceptionCode'
>;

export interface AnalyzeBucketRef {
  id: string;
  signature: string;
  algorithm: string;
}

export interface AnalyzeError {
  code: string;
  message: string;
  command?: string;
  lastOutput?: string[];
}

export interface RawOutputRef {
  command: string;
  /** Relative to the output folder, `/`-separated. */
  path: string;
}

/** What a record could not say: `clrException`, `heapSummary`, `analyze`, `frames.symbols`… */
export type NotAvailable =
  | 'frames'
  | 'frames.symbols'
  | 'clrException'
  | 'heapSummary'
  | 'analyze'
  | 'exception'
  | 'modules.versions';

/** Where the builtin engine's frame names came from, per module a frame lands in. */
export interface AnalyzeSymbolsInfo {
  modules: {
    module: string;
    status: 'loaded' | 'missing';
    format?: 'pdb' | 'breakpad';
    /** The store folder or URL the symbol file came from. */
    origin?: string;
    /** Why there are no symbols: not found (and where it looked), wrong build, corrupt file. */
    reason?: string;
  }[];
}

export interface AnalyzeDumpRecord {
  schemaVersion: 1;
  /** The path as text; bytes of the name that are not valid UTF-8 read as U+FFFD. */
  file: string;
  /** Only for a name that is not valid UTF-8: the path's exact bytes, base64 (docs/records.md). */
  fileBytes?: string;
  /** Bytes on disk (the name `inspect --json` uses too). */
  fileSize: number;
  /** @deprecated the same as fileSize; removed after 0.x. */
  size: number;
  sha256: string;
  ok: boolean;
  error?: AnalyzeError;
  /** True when the dump crashed the debugger twice and was set aside (Symbolicator #233). */
  quarantined?: boolean;
  /**
   * The file ends before what it references (streams, memory, module names, CodeView records,
   * register contexts): what the record holds is partial (the cut is its first warning), and
   * its bucket is made from what could be read.
   */
  truncated?: boolean;
  attempts: number;
  engine: AnalyzeEngineName;
  dumpKind: 'full' | 'mini' | null;
  /** When the dump was written (its header time stamp), ISO 8601. */
  dumpTimestamp?: string;
  process: { name?: string; pid?: number };
  exception: AnalyzeException | null;
  frames: AnalyzeFrame[];
  /**
   * The builtin walk of the crashing thread was cut by a budget: `time` (the per-thread safety
   * net; such a record has no bucket, since the cut depends on the machine's load) or `reads`
   * (the read budget, the same on every run). Absent when the walk ended on its own.
   */
  walkCut?: 'time' | 'reads';
  /**
   * Breakpad's AssertionInfo stream (0x47670002), when the dump has one: the expression,
   * function, file and line of an invalid-parameter or pure-virtual-call death (`type` 1 or 2).
   */
  assertion?: AssertionInfo;
  /** Builtin engine with a symbol path: which modules had symbols, and why not. */
  symbols?: AnalyzeSymbolsInfo;
  /**
   * Where each module image the builtin walk used was found (`dump`, a path, `not found`): with
   * `symbols`, what a bucket depends on, so a different bucket on another machine is explained.
   */
  images?: Record<string, string>;
  modules: AnalyzeModules;
  threadCount?: number;
  memory?: { rangeCount: number; totalBytes: number };
  /** The CLR runtime the dump's module list shows (coreclr.dll, clr.dll, mscorwks.dll). */
  clr?: InspectedClr;
  clrException?: PrintExceptionRecord;
  /** The current thread's managed stack (`clrstack`), as SOS printed it (Linux cores, dotnet-dump). */
  clrStack?: ClrStackRecord;
  /**
   * The managed heap by type (`dumpheap -stat`), the largest types first: `types` keeps the
   * first 50, `typeCount` says how many there were (the whole reply is in its raw file).
   */
  dumpHeapStat?: DumpHeapStatRecord;
  heapSummary?: HeapSummaryRecord;
  analyze?: AnalyzeKeyFields;
  notAvailable: NotAvailable[];
  rawOutputs: RawOutputRef[];
  timings: {
    totalMs: number;
    commands: { command: string; ms: number }[];
    /** Of totalMs, the time spent waiting on the debugger (start, commands, close). */
    debuggerMs?: number;
  };
  warnings: string[];
  /** null for dumps that could not be read at all (nothing to bucket). */
  bucket: AnalyzeBucketRef | null;
}

export interface SummaryBucket {
  id: string;
  signature: string;
  algorithm: string;
  count: number;
  exception: { code: Hex; name: string } | null;
  firstSeen?: string;
  lastSeen?: string;
  /** The first dump (in file order) of the bucket; the one to open first. */
  representative: string;
  files: string[];
  /** Versions of the faulting module across the bucket's dumps. */
  moduleVersions: { module: string; version: string | null; count: number }[];
  /** `!analyze` FAILURE_BUCKET_IDs seen in the bucket (secondary key, cdb only). */
  failureBucketIds: string[];
}

export interface SummaryFailure {
  file: string;
  sha256: string;
  code: string;
  message: string;
}

/** What produced a summary.json: enough to rerun it or to tell two runs apart. */
export interface AnalyzeRunOptions {
  /** `analyze` (dumps read), `merge` (shard folders joined) or `rebucket` (signatures redone). */
  command: 'analyze' | 'merge' | 'rebucket';
  inputs?: string[];
  /** The engine asked for (`auto` included) and the one used. */
  engineRequested?: AnalyzeEngineName | 'auto';
  engine?: AnalyzeEngineName;
  script?: string;
  jobs?: number;
  timeoutMs?: number;
  symbolPath?: string;
  resume?: boolean;
  /** `2/3`: this folder holds one shard of three. */
  shard?: string;
  /** A bucketing skip list given (added to the default one since cdbh-sig-3). */
  skipModules?: string[];
  /** Signature lists given (`--signature-lists`), added to the defaults. */
  signatureLists?: ListEdits;
  /** `merge`: the folders merged. */
  mergedFrom?: string[];
  /**
   * `analyze --queue`: the Redis (password hidden), the queue name, jobs still waited for, and the
   * engines that may take the jobs (each record's `engine` says which one did).
   */
  queue?: { url: string; name: string; waiting: number; engines?: AnalyzeEngineName[] };
}

export interface AnalyzeSummary {
  schemaVersion: 1;
  /** The program that wrote the file. */
  tool: { name: string; version: string };
  /** How it was run (absent in summaries written before 0.2). */
  options?: AnalyzeRunOptions;
  generatedAt: string;
  algorithm: string;
  engines: AnalyzeEngineName[];
  dumps: number;
  ok: number;
  failed: number;
  /** Records of dumps cut short (read in part: `truncated: true`); absent when none. */
  truncated?: number;
  quarantined: SummaryFailure[];
  failures: SummaryFailure[];
  buckets: SummaryBucket[];
  /** The most frequent exception over ok dumps. */
  topException: { code: Hex; name: string; count: number } | null;
  /** Set when the run was interrupted: the records listed are complete, others were not done. */
  interrupted?: boolean;
  /**
   * What folder scans passed over, by reason (`FIFO`, `broken link`, `link to a directory`,
   * `unreadable folder`…): entries with a dump extension that are not regular files.
   */
  skippedInputs?: Record<string, number>;
}
