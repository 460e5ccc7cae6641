// The record contract of ../shared/spec/records.md as TypeScript types. Field names here are the
// published API: add fields freely, never rename. Conventions (from records.md):
// - addresses, pointers, method tables: `0x` + lower-case hex, backtick removed (`Hex` below);
// - exception codes and HRESULTs: `0x` + 8 lower-case hex digits;
// - process/thread ids from banners `(5fc4.6320)`: strings `0x5fc4`, `0x6320`;
// - sizes are numbers in the unit the field names; text is trimmed as printed.

/** `0x`-prefixed lower-case hex string. */
export type Hex = string;

/** Every record carries the lines it could not place; a parser never throws. */
export interface RecordBase {
  warnings: string[];
}

// ---- heap ---------------------------------------------------------------------------------------

export interface HeapSummaryHeap {
  address: Hex;
  flags: Hex;
  reservedKb: number;
  committedKb: number;
  virtualKb: number;
  freeKb: number;
  listLength: number;
  ucrCount: number;
  virtualBlocks: number;
  lockContention: number;
  fastHeap: 'LFH' | 'L' | null;
  /** `External fragmentation  38 % (163 free blocks)` sub-line, when printed. */
  externalFragmentationPercent?: number;
  externalFragmentationFreeBlocks?: number;
  /**
   * `Virtual block: X - X (size N)` lines. cdb prints them just BEFORE the row of the heap they
   * belong to (keenjin transcript: 10 lines, then a row with `Virt blocks` = 10).
   */
  virtualBlockRanges?: { start: Hex; end: Hex; size: number }[];
}

export interface SegmentHeapEntry {
  address: Hex;
  [field: string]: unknown;
}

export interface HeapSummaryRecord extends RecordBase {
  heaps: HeapSummaryHeap[];
  lfhKey?: Hex;
  terminationOnCorruption?: boolean;
  segmentHeaps?: SegmentHeapEntry[];
  ntGlobalFlag?: string[];
  /** `SEGMENT HEAP ERROR: failed to initialize the extention` (sic), as printed. */
  segmentHeapError?: string;
  /** True when the table said `No heaps to display.` (an empty list that is not a parse failure). */
  noHeapsToDisplay?: boolean;
  /** Windows 7 `Affinity manager status:` block. */
  affinityManager?: {
    virtualAffinityLimit?: number;
    currentEntriesInUse?: number;
    swaps?: number;
    resets?: number;
    allocs?: number;
  };
}

export interface HeapStatBucket {
  size: number;
  count: number;
  totalBytes: number;
  percent: number;
}

export interface HeapStatRecord extends RecordBase {
  heap?: Hex;
  buckets: HeapStatBucket[];
  /** `group-by: TOTSIZE max-display: 20` */
  groupBy?: string;
  maxDisplay?: number;
}

// ---- SOS ----------------------------------------------------------------------------------------

export interface ManagedStackFrame {
  sp?: Hex;
  ip?: Hex;
  function: string;
  /** `pe -lines`: the `[file @ line]` text, brackets removed (not part of `function`). */
  source?: string;
}

export interface ManagedException {
  address: Hex | null;
  type: string;
  message: string | null;
  innerException: null | { type: string; address?: Hex };
  stack: ManagedStackFrame[];
  stackTraceString: string | null;
  hresult: Hex | null;
  /** True for the exceptions after a `Nested exception ----` separator (`!pe -nested`). */
  nested?: boolean;
}

export interface PrintExceptionRecord extends RecordBase {
  exceptions: ManagedException[];
  noException: boolean;
  /** `There are nested exceptions on this thread. Run with -nested for details` */
  nestedExceptionsOmitted?: boolean;
}

/** One `-a`/`-p`/`-l` line: `intercept (0x0000003a9acfef08) = 0x0`, `0x… = 0x…`, `<no data>`. */
export interface ClrStackVariable {
  name?: string;
  location?: string;
  /** null for `<no data>`. */
  value: string | null;
}

export interface ClrStackFrame {
  childSp?: Hex;
  ip?: Hex;
  /** As printed, without a trailing `[file @ line]` (that is `source`). */
  callSite: string;
  /** `[GCFrame: 00aff368]` -> `GCFrame` and its address. */
  frameType?: string;
  frameAddress?: Hex;
  source?: string;
  parameters?: ClrStackVariable[];
  locals?: ClrStackVariable[];
}

export interface ClrStackThread {
  osThreadId: Hex | null;
  /** The debugger's thread number: `OS Thread Id: 0x23f0 (0)`. */
  threadIndex?: number;
  frames: ClrStackFrame[];
}

export interface ClrStackRecord extends RecordBase {
  threads: ClrStackThread[];
  error?: string;
  /** `Failed to start stack walk: 80070057` -> `0x80070057`. */
  errorCode?: Hex;
  /** Symbol-load noise removed from the output (`*** WARNING: Unable to verify checksum …`). */
  noise?: string[];
}

export interface DumpHeapStatType {
  methodTable: Hex;
  count: number;
  totalSize: number;
  className: string;
}

export interface DumpHeapStatRecord extends RecordBase {
  types: DumpHeapStatType[];
  totalObjects?: number;
  /** Bytes, from the footer's `, N bytes` (newer SOS prints it). */
  totalSize?: number;
  /** Rows parsed, also when the caller streamed them out instead of keeping them. */
  typeCount?: number;
}

export interface EeHeapGcSegment {
  /**
   * `soh` before `Large object heap starts at`, then `loh`, then `poh` (pinned object heap); in the
   * regions layout, from the area headings, with `nongc` for the NonGC (frozen objects) heap.
   */
  area: 'soh' | 'loh' | 'poh' | 'nongc';
  /** Regions layout: the `generation N:` the region is listed under. */
  generation?: number;
  segment: Hex;
  begin: Hex;
  allocated: Hex;
  committed?: Hex;
  allocatedSize?: number;
  committedSize?: number;
}

/** One `Heap N (ADDR)` block of `!eeheap -gc` (a workstation GC prints one without the header). */
export interface EeHeapGcHeap {
  index?: number;
  address?: Hex;
  generations: { generation: number; start: Hex }[];
  ephemeralAllocationContext?: string;
  largeObjectHeapStart?: Hex;
  pinnedObjectHeapStart?: Hex;
  segments: EeHeapGcSegment[];
  allocatedSize?: number;
  committedSize?: number;
  [field: string]: unknown;
}

export interface EeHeapGcRecord extends RecordBase {
  heaps: EeHeapGcHeap[];
  /** Bytes: `GC Allocated Heap Size: Size: 0x14459f90 (340107152) bytes.` (or `GC Heap Size:`). */
  totalSize?: number;
  totalCommitted?: number;
  heapCount?: number;
  /** `DATAS = …` when it carries a value (.NET 8+). */
  datas?: string;
}

// ---- events and exceptions ----------------------------------------------------------------------

export type Chance = 'first' | 'second' | null;

export interface DebuggerEventRecord extends RecordBase {
  processId: Hex | null;
  threadId: Hex | null;
  description: string;
  code: Hex | null;
  chance: Chance;
  clrExceptionType?: string;
  clrExceptionMessage?: string;
  /** The exception address winedbg prints (`in 64-bit code (0x…)`); cdb banners have none. */
  address?: Hex;
  /** For access violations decoded from winedbg text: `read`, `write` or `execute` and the address. */
  accessType?: 'read' | 'write' | 'execute';
  accessAddress?: Hex;
}

export interface LastEventRecord extends RecordBase {
  processId?: Hex;
  threadId?: Hex;
  description: string;
  code?: Hex;
  chance?: Chance;
  /** `  debugger time: Thu Apr  2 16:35:59.191 2009 (GMT+8)` */
  debuggerTime?: string;
}

export interface ExceptionRecordRecord extends RecordBase {
  address: Hex | null;
  code: Hex | null;
  flags: Hex | null;
  parameters: Hex[];
  description?: string;
  /** The symbol cdb prints after ExceptionAddress: `(KERNELBASE!RaiseException+0x00000062)`. */
  addressSymbol?: string;
  numberParameters?: number;
  /** `Attempt to write to address 0000000000000000` (access violations). */
  accessType?: 'read' | 'write' | 'execute';
  accessAddress?: Hex;
  /** C++ EH records: the `Type            : class HrException` lines, most derived first. */
  cxxTypes?: string[];
}

// ---- stacks and modules -------------------------------------------------------------------------

export interface StackFrame {
  frameNumber?: number;
  childSp?: Hex;
  returnAddress?: Hex;
  callSite: string;
  /** callSite split into parts when it has the `module!function+0xoff` shape. */
  module?: string;
  function?: string;
  offset?: Hex;
  /** Source location when the debugger printed one (`[file @ line]`, winedbg `[file:line]`). */
  source?: string;
  /** `(Inline Function)` rows: the frame has no stack pointer or return address of its own. */
  inline?: boolean;
  /** `Args to Child` columns (kb, kv), as printed. */
  args?: Hex[];
  /** winedbg `bt`: the frame's instruction pointer and frame address (the trailing `(0x…)`). */
  ip?: Hex;
  framePointer?: Hex;
}

export interface StackThread {
  threadIndex?: number;
  threadId?: Hex;
  /** From the `~*k` thread header `.  0  Id: 1944.2ac8 Suspend: 0 Teb: 00c06000 Unfrozen`. */
  processId?: Hex;
  suspendCount?: number;
  teb?: Hex;
  /** `.` marks the current thread, `#` the thread of the last event. */
  current?: boolean;
  eventThread?: boolean;
  frames: StackFrame[];
}

export interface StackRecord extends RecordBase {
  threads: StackThread[];
}

export interface ModuleEntry {
  start: Hex;
  end: Hex;
  name: string;
  symbolStatus?: string;
  imagePath?: string;
  fileVersion?: string;
  /** `lm`: the symbol file printed after the status (`(pdb symbols)  c:\…\ntdll.pdb`). */
  symbolFile?: string;
  /** `lmv` detail lines (`Image name`, `Timestamp`, `Product version`, …) as printed. */
  imageName?: string;
  productVersion?: string;
  timestamp?: string;
  details?: Record<string, string>;
  /** Rows after `Unloaded modules:`. */
  unloaded?: boolean;
  /** winedbg `info share`: `PE` or `ELF`. */
  moduleType?: string;
}

export interface ModulesRecord extends RecordBase {
  modules: ModuleEntry[];
}

export interface AnalyzeRecord extends RecordBase {
  exceptionCode?: Hex;
  processName?: string;
  failureBucketId?: string;
  bucketId?: string;
  symbolName?: string;
  moduleName?: string;
  imageName?: string;
  faultingFrame?: string;
  stackFrames: StackFrame[];
  defaultBucketId?: string;
  primaryProblemClass?: string;
  bugcheckStr?: string;
  followupName?: string;
  faultingThread?: Hex;
  /** The `.exr` block printed under EXCEPTION_RECORD. */
  exceptionRecord?: ExceptionRecordRecord;
  /** Every one-line `KEY:  value` field, as printed. */
  fields?: Record<string, string>;
}

// ---- dumps, extensions, sessions ----------------------------------------------------------------

export interface DumpWrittenRecord extends RecordBase {
  path?: string;
  success: boolean;
  error?: string;
  /** `Creating X - mini user dump`: the kind cdb names. */
  dumpType?: string;
  /** `Dump creation failed, Win32 error 0n5`. */
  win32Error?: number;
}

export interface ExtensionLoadRecord extends RecordBase {
  success: boolean;
  error?: string;
}

export interface AddressSummaryRecord extends RecordBase {
  usage: { name: string; regionCount: number; totalSize: number }[];
  /** Rows of the other `--- X Summary ---` sections, by section title. */
  otherSections?: {
    title: string;
    rows: { name: string; regionCount: number; totalSize: number }[];
  }[];
}

export interface UmdhDiffEntry {
  backtrace: string;
  bytesDelta: number;
  newBytes: number;
  oldBytes: number;
  allocsDelta?: number;
  /** Allocation counts from the `COUNT_DELTA (NEW_COUNT - OLD_COUNT)` line. */
  newAllocs?: number;
  oldAllocs?: number;
  frames: string[];
}

export interface UmdhDiffRecord extends RecordBase {
  entries: UmdhDiffEntry[];
  /** `Total increase == 27000 requested + 9c0 overhead = 279c0`: the last figure (bytes). */
  totalIncrease?: number;
  totalDecrease?: number;
  totalIncreaseRequested?: number;
  totalIncreaseOverhead?: number;
  totalDecreaseRequested?: number;
  totalDecreaseOverhead?: number;
  /** Entries parsed, also when the caller streamed them out instead of keeping them. */
  entryCount?: number;
  /** umdh's own notices (`Warning: _NT_SYMBOL_PATH …`, `DBGHELP: …`), not placed in entries. */
  messages?: string[];
  /** Snapshot-style `N bytes in M allocations (@ S) by: BackTraceX` blocks quoted in the report. */
  logEntries?: UmdhLogEntry[];
}

export interface UmdhLogEntry {
  backtrace: string;
  bytes: number;
  allocs?: number;
  /** `(@ 0x00000428)`: bytes per allocation. */
  allocationSize?: number;
  frames: string[];
}

export interface UmdhLogRecord extends RecordBase {
  entries: UmdhLogEntry[];
  entryCount?: number;
}

export interface StartupRecord extends RecordBase {
  debuggerVersion?: string;
  dumpFile?: string;
  dumpKind?: string;
  symbolPath?: string;
  /** `AMD64`, `X86` from the version line. */
  debuggerArchitecture?: string;
  executablePath?: string;
  commandLine?: string;
  /** `Windows 10 Version 14393 MP (8 procs) Free x64` */
  osVersion?: string;
  builtBy?: string;
  debugSessionTime?: string;
  systemUptime?: string;
  processUptime?: string;
  /** `Comment: 'HangMode'` (a comment stream in the dump). */
  comment?: string;
  /** `This dump file has an exception of interest stored in it.` */
  exceptionOfInterest?: boolean;
  /** `*** wait with pending attach` */
  pendingAttach?: boolean;
  /** Opening the target failed: `Could not open dump file [...], HRESULT 0x80004005`. */
  error?: string;
  hresult?: Hex;
}

export interface SessionEndRecord extends RecordBase {
  detached: boolean;
}

export interface UnknownRecord extends RecordBase {
  raw: string;
}

// ---- the kind map and the `parse` envelope ------------------------------------------------------

export interface RecordByKind {
  heapSummary: HeapSummaryRecord;
  heapStat: HeapStatRecord;
  printException: PrintExceptionRecord;
  clrStack: ClrStackRecord;
  debuggerEvent: DebuggerEventRecord;
  lastEvent: LastEventRecord;
  exceptionRecord: ExceptionRecordRecord;
  stack: StackRecord;
  modules: ModulesRecord;
  analyze: AnalyzeRecord;
  dumpWritten: DumpWrittenRecord;
  extensionLoad: ExtensionLoadRecord;
  dumpHeapStat: DumpHeapStatRecord;
  eeHeapGc: EeHeapGcRecord;
  addressSummary: AddressSummaryRecord;
  umdhDiff: UmdhDiffRecord;
  umdhLog: UmdhLogRecord;
  startup: StartupRecord;
  sessionEnd: SessionEndRecord;
  unknown: UnknownRecord;
}

export type RecordKind = keyof RecordByKind;

export const RECORD_KINDS: readonly RecordKind[] = [
  'heapSummary',
  'heapStat',
  'printException',
  'clrStack',
  'debuggerEvent',
  'lastEvent',
  'exceptionRecord',
  'stack',
  'modules',
  'analyze',
  'dumpWritten',
  'extensionLoad',
  'dumpHeapStat',
  'eeHeapGc',
  'addressSummary',
  'umdhDiff',
  'umdhLog',
  'startup',
  'sessionEnd',
  'unknown',
];

export type ParsedEntry = {
  [K in RecordKind]: {
    command: string | null;
    kind: K;
    record: RecordByKind[K];
    warnings: string[];
  };
}[RecordKind];

export interface ParseEnvelope {
  schemaVersion: 1;
  entries: ParsedEntry[];
  events: DebuggerEventRecord[];
}

export type Dialect = 'cdb' | 'winedbg';
