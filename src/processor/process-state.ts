// What processDump() knows about one dump, typed: addresses stay bigint, times stay epoch seconds,
// every frame keeps its module object and its trust, on the model of rust-minidump's
// minidump-processor `ProcessState` (process_state.rs: `Address(pub u64)`, printed as text only
// by `print_json`). Text is made at the edges: src/report/inspect/ (the `inspect --json` shape)
// and the analyze record mapper (src/workflows/analyze/builtin-record.ts).
import type { HeapWalk } from './heap-walk.js';
import type { AssertionInfo } from '../minidump/streams/assertion-info.js';
import type { ModuleIdentity } from '../common/module-identity.js';
import type { HarnessErrorCode } from '../errors.js';
import type { AccessKind } from '../minidump/exception-codes.js';
import type { StreamInfo } from '../minidump/directory.js';
import type { MinidumpThread } from '../minidump/minidump.js';
import type { HandleSummary } from '../minidump/streams/handle-data.js';
import type { MemoryInfoSummary, MemoryRegion } from '../minidump/streams/memory-info-list.js';
import type { SystemInfo } from '../minidump/streams/system-info.js';
import type { UnloadedModule } from '../minidump/streams/unloaded-module-list.js';
import type {
  FrameTrust,
  RegisterSet,
  StackArch,
  StackFrame,
  SymbolHit,
  WalkStop,
} from '../stackwalk/types.js';
import type { InspectedClr, InspectedClrException } from './clr.js';
import type { DumpKind } from './dump-kind.js';
import type { DumpWriter } from './writer-fingerprint.js';

export type { FrameTrust, WalkStop, StackFrame, RegisterSet, StackArch, SymbolHit };

/** A walked frame: bigint addresses, its module object, its trust and its lookup `instruction`. */
export type ProcessFrame = StackFrame;

/** A module of the dump: the one ModuleIdentity plus what the module list adds. */
export interface ProcessModule extends ModuleIdentity {
  checksum: number;
  codeId: string;
  fileVersion?: string;
  productVersion?: string;
}

/** One thread's walked stack. Each frame carries its module object and its lookup address. */
export interface CallStack {
  /** `exception`: frame 0 is the exception context (`.ecxr`); `thread`: the thread's own. */
  context: 'exception' | 'thread';
  frames: StackFrame[];
  stop: WalkStop;
  /** With stop `budget`: `time` or `reads` (StackWalk.cut). */
  cut?: 'time' | 'reads';
  warnings: string[];
}

export interface ProcessThread extends MinidumpThread {
  /** The thread the exception stream names. */
  faulting: boolean;
  /**
   * The thread that wrote the dump (BreakpadInfo's dump thread, or ThreadInfoList's
   * WritingThread flag): its stack shows the dump writer, not the program.
   */
  writingThread?: boolean;
  /** Walked when the options asked for this thread and its context was readable. */
  callStack?: CallStack;
}

export interface ProcessException {
  threadId: number;
  code: number;
  /** `EXCEPTION_ACCESS_VIOLATION`, …. */
  name: string;
  flags: number;
  address: bigint;
  parameters: bigint[];
  /** Access violations: what was attempted and where (from the parameters). */
  access?: { kind?: AccessKind; address: bigint };
  /** The module whose image holds `address`. */
  module?: ProcessModule;
  /** True when the record chains to another (ExceptionRecord ≠ 0). */
  nested: boolean;
  /** CLR exceptions (0xe0434352/0xe0434f4d): the HRESULT and runtime the parameters name. */
  clr?: InspectedClrException;
  /** The exception address's name from symbol files, when they have one. */
  symbol?: SymbolHit;
  /** The registers at the exception (`.ecxr; r`), when the crashing thread was walked. */
  registers?: RegisterSet;
}

export interface ProcessInfo {
  pid?: number;
  /** Seconds since 1970. */
  createTime?: number;
  /** The main module (the first in the module list). */
  main?: ProcessModule;
  uptimeSeconds?: number;
  userTimeSeconds?: number;
  kernelTimeSeconds?: number;
  privateUsage?: number;
  workingSetSize?: number;
}

export interface ProcessMemory {
  rangeCount: number;
  totalBytes: number;
  sources: ('MemoryList' | 'Memory64List')[];
  missingBytes: number;
  info?: MemoryInfoSummary;
}

/** The process's address space as the dump saw it (processDump's `regions` option). */
export interface ProcessRegions {
  /** Every MemoryInfoList region (VirtualQuery's map), or null without that stream. */
  regions: readonly MemoryRegion[] | null;
  /** The process heaps' base addresses, read through the PEB (process-heaps.ts). */
  heaps: readonly bigint[];
  /** Each heap walked to its sub-heaps/segments and large blocks (heap-walk.ts), with regions. */
  heapWalk?: HeapWalk;
}

/** Where the symbols of one module came from, or why it has none (per module a frame is in). */
export type ModuleSymbolStatus =
  | {
      module: string;
      status: 'loaded';
      format: 'pdb' | 'breakpad';
      origin: string;
      reason?: string;
    }
  | { module: string; status: 'missing'; reason: string };

export interface ProcessState {
  ok: true;
  file: string;
  fileSize: number;
  dumpKind: DumpKind;
  /** The header's Flags (MINIDUMP_TYPE) as written. */
  headerFlags: bigint;
  /** When the dump was written, seconds since 1970 (0: not recorded). */
  time: number;
  system: SystemInfo | null;
  /** The CPU the walker knows, when it is one. */
  arch: StackArch | null;
  writer?: { writer: DumpWriter; evidence: string };
  process: ProcessInfo;
  clr?: InspectedClr;
  exception: ProcessException | null;
  /**
   * The thread the dump is about: the exception's; without an exception, the one BreakpadInfo
   * says requested the dump, else the first thread that did not write it (Breakpad's choice).
   */
  requestingThreadId?: number;
  threads: ProcessThread[];
  modules: ProcessModule[];
  unloadedModules: UnloadedModule[];
  handles?: HandleSummary;
  memory: ProcessMemory;
  /** The regions and heaps, when asked for (`regions: true`): heap-trend's memory categories. */
  regions?: ProcessRegions;
  comments: string[];
  /** Breakpad's AssertionInfo stream: an invalid parameter or pure virtual call. */
  assertion?: AssertionInfo;
  streams: StreamInfo[];
  /** Where each module image the walk asked for was found (`dump`, a path, `not found`). */
  images?: Record<string, string>;
  /** Per module a walked frame lands in: its symbol files, or why none (a symbol path given). */
  symbols?: ModuleSymbolStatus[];
  /** Bytes read from image files outside the dump. */
  imageBytesRead: number;
  /** Bytes of the dump file read. */
  bytesRead: number;
  /**
   * True when anything the file references lies past its end: streams, memory, module names,
   * CodeView records, register contexts (truncated-streams.ts).
   */
  truncated: boolean;
  /** What lies past the end, counted: `{"ModuleList strings": 37, "exception context": 1}`. */
  pastEnd?: Record<string, number>;
  warnings: string[];
}

/** A dump that could not be read at all (its header or directory): what was learnt and why. */
export interface ProcessFailure {
  ok: false;
  file: string;
  error: { code: HarnessErrorCode | 'INTERNAL'; message: string };
  fileSize?: number;
  warnings: string[];
}

export type ProcessResult = ProcessState | ProcessFailure;
