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
  /** `Virtual block: X - X (size N)` lines that followed this heap's row. */
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
}

// ---- SOS ----------------------------------------------------------------------------------------

export interface ManagedStackFrame {
  sp?: Hex;
  ip?: Hex;
  function: string;
}

export interface ManagedException {
  address: Hex | null;
  type: string;
  message: string | null;
  innerException: null | { type: string; address?: Hex };
  stack: ManagedStackFrame[];
  stackTraceString: string | null;
  hresult: Hex | null;
}

export interface PrintExceptionRecord extends RecordBase {
  exceptions: ManagedException[];
  noException: boolean;
}

export interface ClrStackFrame {
  childSp?: Hex;
  ip?: Hex;
  callSite: string;
}

export interface ClrStackThread {
  osThreadId: Hex | null;
  frames: ClrStackFrame[];
}

export interface ClrStackRecord extends RecordBase {
  threads: ClrStackThread[];
  error?: string;
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
}

export interface EeHeapGcRecord extends RecordBase {
  heaps: Record<string, unknown>[];
  totalSize?: number;
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
}

export interface ExceptionRecordRecord extends RecordBase {
  address: Hex | null;
  code: Hex | null;
  flags: Hex | null;
  parameters: Hex[];
  description?: string;
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
}

export interface StackThread {
  threadIndex?: number;
  threadId?: Hex;
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
}

// ---- dumps, extensions, sessions ----------------------------------------------------------------

export interface DumpWrittenRecord extends RecordBase {
  path?: string;
  success: boolean;
  error?: string;
}

export interface ExtensionLoadRecord extends RecordBase {
  success: boolean;
  error?: string;
}

export interface AddressSummaryRecord extends RecordBase {
  usage: { name: string; regionCount: number; totalSize: number }[];
}

export interface UmdhDiffEntry {
  backtrace: string;
  bytesDelta: number;
  newBytes: number;
  oldBytes: number;
  allocsDelta?: number;
  frames: string[];
}

export interface UmdhDiffRecord extends RecordBase {
  entries: UmdhDiffEntry[];
  totalIncrease?: number;
  totalDecrease?: number;
}

export interface UmdhLogEntry {
  backtrace: string;
  bytes: number;
  allocs?: number;
  frames: string[];
}

export interface UmdhLogRecord extends RecordBase {
  entries: UmdhLogEntry[];
}

export interface StartupRecord extends RecordBase {
  debuggerVersion?: string;
  dumpFile?: string;
  dumpKind?: string;
  symbolPath?: string;
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
