// The record contract as TypeScript types: what every parser returns and `cdb-harness parse`
// prints (checked at run time against schemas/<kind>.schema.json). Field names are published API:
// add fields freely, never rename. Conventions:
// - addresses, pointers, method tables: `0x` + lower-case hex, backtick removed (`Hex` below);
// - exception codes and HRESULTs: `0x` + 8 lower-case hex digits;
// - process/thread ids from banners `(5fc4.6320)`: strings `0x5fc4`, `0x6320`;
// - sizes are numbers in the unit the field names; text is trimmed as printed.
// Each record type lives in its parser's file, next to the code that fills it; this file
// re-exports them all, so `import type { StackRecord } from './records.js'` works everywhere.
import type { DebuggerEventRecord } from './debugger-event.js';
import type { RecordByKind, RecordKind } from './registry.js';

/** `0x`-prefixed lower-case hex string. */
export type Hex = string;

/** Every record carries the lines it could not place; a parser never throws. */
export interface RecordBase {
  warnings: string[];
}

export type Chance = 'first' | 'second' | null;

export type { AddressSummaryRecord } from './address-summary.js';
export type { AnalyzeRecord } from './analyze.js';
export type {
  ClrStackFrame,
  ClrStackRecord,
  ClrStackThread,
  ClrStackVariable,
} from './clr-stack.js';
export type { DebuggerEventRecord } from './debugger-event.js';
export type { DumpHeapShortRecord } from './dump-heap-short.js';
export type { DumpHeapStatRecord, DumpHeapStatType } from './dump-heap-stat.js';
export type { GcRootLink, GcRootPath, GcRootRecord } from './gc-root.js';
export type { DumpWrittenRecord } from './dump-written.js';
export type { EeHeapGcHeap, EeHeapGcRecord, EeHeapGcSegment } from './ee-heap-gc.js';
export type { ExceptionRecordRecord } from './exception-record.js';
export type { ExtensionLoadRecord } from './extension-load.js';
export type { HeapStatBucket, HeapStatRecord } from './heap-stat.js';
export type { HeapSummaryHeap, HeapSummaryRecord, SegmentHeapEntry } from './heap-summary.js';
export type { LastEventRecord } from './last-event.js';
export type { ModuleEntry, ModulesRecord } from './modules.js';
export type {
  ManagedException,
  ManagedStackFrame,
  PrintExceptionRecord,
} from './print-exception.js';
export type { SessionEndRecord } from './session-end.js';
export type { StackFrame, StackRecord, StackThread } from './stack.js';
export type { StartupRecord } from './startup.js';
export type { ThreadListEntry, ThreadListRecord } from './thread-list.js';
export type { UmdhDiffEntry, UmdhDiffRecord } from './umdh.js';
export type { UmdhLogEntry, UmdhLogRecord } from './umdh-log.js';
export type { UnknownRecord } from './unknown.js';

// ---- the kind map and the `parse` envelope ------------------------------------------------------

// Derived from the parsers' descriptors (src/parsers/registry.ts).
export type { RecordByKind, RecordKind };
export { RECORD_KINDS } from './registry.js';

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
