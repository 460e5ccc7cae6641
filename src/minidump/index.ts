// The minidump reader's public surface (a pure reader: positioned reads, never the whole file).
export { openMinidump, Minidump, MAX_STREAM_BYTES } from './minidump.js';
export type { OpenMinidumpOptions, MinidumpThread, MemorySummary, MemoryInfo } from './minidump.js';
export { exceptionName, accessViolationDetail, parseExceptionCode } from './exception-codes.js';
export type { AccessKind } from './exception-codes.js';
export type { StreamInfo } from './directory.js';
export type { MinidumpHeader } from './header.js';
export { StreamType, streamTypeName } from './stream-types.js';
export { MemoryMap } from './memory-map.js';
export type { CapturedRange } from './streams/memory-lists.js';
export type { DumpException } from './streams/exception.js';
export type { DumpModule } from './streams/module-list.js';
export type { DumpThread } from './streams/thread-list.js';
export type { SystemInfo } from './streams/system-info.js';
export type { MiscInfo } from './streams/misc-info.js';
export type { UnloadedModule } from './streams/unloaded-module-list.js';
export type { HandleSummary } from './streams/handle-data.js';
export type { ProcessVmCounters } from './streams/process-vm-counters.js';
export type { MemoryRegion, MemoryInfoSummary } from './streams/memory-info-list.js';
export type { ThreadInfo } from './streams/thread-info-list.js';
export type { BreakpadInfo } from './streams/breakpad-info.js';

// Deprecated here, kept for one release: inspecting a dump is the processor's job now
// (src/processor/); import these from there.
export { inspectDump } from '../processor/inspect.js';
export type {
  InspectDumpOptions,
  InspectedDump,
  InspectedDumpOk,
  InspectedDumpFailed,
  InspectedException,
  InspectedModule,
  InspectedUnloadedModule,
  InspectedThread,
  InspectedProcess,
  InspectedSystem,
  InspectedMemory,
  InspectedStream,
} from '../processor/inspect.js';
export type {
  InspectedFrame,
  InspectedStack,
  InspectedStacks,
} from '../processor/inspect-stacks.js';
export type { DumpKind } from '../processor/dump-kind.js';
export type { DumpWriter } from '../processor/writer-fingerprint.js';
