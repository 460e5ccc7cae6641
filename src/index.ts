// Public library API: re-exports only.
export * from './errors.js';
export type * from './parsers/records.js';
export * from './engine/debugger-session.js';
export type * from './engine/dialects/common/stop-event.js';
export { DIALECT_NAMES, getDialect, isDialectName } from './engine/dialects/index.js';
export type { DialectName } from './engine/dialects/index.js';
export type {
  Dialect as DebuggerDialect,
  ExceptionBreakSettings,
  SessionTarget,
} from './engine/dialects/types.js';
export { locateCdb } from './engine/dialects/cdb/locate.js';
export { buildSymbolPath, MICROSOFT_SYMBOL_SERVER } from './engine/dialects/cdb/symbol-path.js';
export type { SymbolPathOptions } from './engine/dialects/cdb/symbol-path.js';
export { PtyProcess } from './pty/pty-process.js';
export type { PtyExit, PtyProcessOptions } from './pty/pty-process.js';

// Parsers: text -> typed records (records.md), and whole logs -> the `parse` envelope.
export { parseText } from './parsers/parse-text.js';
export { splitLog } from './parsers/split-log.js';
export { findDebuggerEvents, parseDebuggerEvent } from './parsers/debugger-event.js';
export { parseLastEvent } from './parsers/last-event.js';
export { parseExceptionRecord } from './parsers/exception-record.js';
export { parseStack } from './parsers/stack.js';
export { parseModules } from './parsers/modules.js';
export { parseAnalyze } from './parsers/analyze.js';
export { parseStartup } from './parsers/startup.js';
export { parseSessionEnd } from './parsers/session-end.js';
export { parseDumpWritten } from './parsers/dump-written.js';
export { parseExtensionLoad } from './parsers/extension-load.js';
export { parseHeapSummary } from './parsers/heap-summary.js';
export { parseHeapStat } from './parsers/heap-stat.js';
export { parsePrintException } from './parsers/print-exception.js';
export { parseClrStack } from './parsers/clr-stack.js';
export { parseDumpHeapStat, createDumpHeapStatParser } from './parsers/dump-heap-stat.js';
export { parseEeHeapGc } from './parsers/ee-heap-gc.js';
export { parseAddressSummary } from './parsers/address-summary.js';
export {
  parseUmdhDiff,
  parseUmdhLog,
  createUmdhDiffParser,
  createUmdhLogParser,
} from './parsers/umdh.js';
export { parseWinedbgInfoMaps } from './engine/dialects/winedbg/info-maps.js';

// The built-in minidump reader.
export * from './minidump/index.js';

// The dump processor (rust-minidump's minidump-processor): a dump, walked and named, typed; and
// its `inspect --json` form.
export * from './processor/index.js';
export * from './report/inspect/index.js';

// The stack walker (a pure leaf) and the one supplier of symbol files and module images.
export * as stackwalk from './stackwalk/index.js';
export { createSymbolSupplier } from './symbols/supplier/symbol-supplier.js';
export type {
  DumpSupply,
  SupplierOptions,
  SymbolSupplier,
} from './symbols/supplier/symbol-supplier.js';
export { dumpImages, localPaths } from './symbols/supplier/image-locator.js';
export type { DumpImages, ImageLocatorOptions } from './symbols/supplier/image-locator.js';

// Schemas (ajv; precompiled validators when built, see src/report/schemas.ts).
export { validate, assertValid, schemaNames } from './report/schemas.js';
export { packageInfo } from './package-info.js';

// Workflows: what the CLI subcommands call.
export { analyzeDumps } from './workflows/analyze/analyze.js';
export type {
  AnalyzeOptions as AnalyzeDumpsOptions,
  AnalyzeResult,
} from './workflows/analyze/analyze.js';
export { watch } from './workflows/watch/watch.js';
export type { WatchOptions } from './workflows/watch/watch.js';
export type { WatchSummary } from './workflows/watch/watch-records.js';
export { dumpProcess } from './workflows/dump/dump.js';
export type { DumpOptions, DumpResult } from './workflows/dump/dump.js';
export { runHeapTrend } from './workflows/heap-trend/run-heap-trend.js';
export type { HeapTrendOptions, HeapTrendResult } from './workflows/heap-trend/run-heap-trend.js';
export { runUmdhDiff } from './workflows/umdh/umdh-diff.js';
export type { UmdhDiffOptions } from './workflows/umdh/umdh-diff.js';
export { listProcesses, findProcesses, resolveProcess } from './workflows/process-lookup.js';

// Types the functions above take and return (test/unit/library-exports.test.ts checks that
// every one is here), so a caller can name an options object, an event or a result.
export type { CpuSource } from './platform/common/types.js';
export type { CounterSource } from './engine/dialects/common/typeperf.js';
export type {
  DialectAbilities,
  DumpToolOptions,
  ExitEventRules,
  SosBatchOutputs,
  IdentifyCommands,
  LastEventReading,
  LiveDumpTool,
  ProcessInfo as ListedProcess,
  ProcessListOptions,
  RegionListing,
  SizeEstimate,
  CoreDumpAnalysis,
} from './engine/dialects/common/types.js';
export type { ElfCoreReading } from './engine/dialects/common/elf-core.js';
export type { BytePath } from './common/byte-path.js';
export type { HeapWalk, WalkedHeap } from './processor/heap-walk.js';
export type { ShowPath } from './report/analyze/shown-paths.js';
export type {
  WinedbgInfoMapsRecord,
  WinedbgMapRegion,
  WinedbgMapState,
  WinedbgMapType,
} from './engine/dialects/winedbg/info-maps.js';
export type { PositionedFileReader } from './minidump/file-reader.js';
export type { MemoryMapStats } from './minidump/memory-map.js';
export type { AssertionInfo } from './minidump/streams/assertion-info.js';
export type { CodeViewInfo } from './minidump/streams/codeview.js';
export type { RangeSource } from './minidump/streams/memory-lists.js';
export type { ModuleIdentity } from './minidump/streams/module-identity.js';
export type { MemoryLocation } from './minidump/streams/thread-list.js';
export type { PackageInfo } from './package-info.js';
export type { AddressSummaryRow } from './parsers/address-summary.js';
export type { DumpHeapStatParser } from './parsers/dump-heap-stat.js';
export type { StreamOptions } from './parsers/line-parser.js';
export type { ParseTextOptions } from './parsers/parse-text.js';
export type { LogSection, SplitLog } from './parsers/split-log.js';
export type { UmdhLogParser } from './parsers/umdh-log.js';
export type { UmdhDiffParser, UmdhDiffParserOptions } from './parsers/umdh.js';
export type { ClrRuntimeKind } from './processor/clr.js';
export type {
  AnalyzeDumpRecord,
  AnalyzeError,
  AnalyzeSummary,
} from './report/analyze/analyze-record.js';
export type {
  ClrCounters,
  HeapTrendCadence,
  HeapTrendEngine,
  HeapTrendProjection,
  HeapTrendReport,
  HeapTrendSecondary,
  HeapTrendSeriesKind,
  HeapTrendSample,
  HeapTrendSeries,
  HeapTrendSource,
  HeapTrendStatus,
  HeapTrendTierUse,
  HeapTrendVerdict,
  MemoryTotals,
  RetentionEntry,
  RetentionGroup,
  RetentionRoot,
  SeriesStats,
  SuspectRule,
  ThresholdDump,
  VerdictSuspect,
} from './report/heap-trend/types.js';
export type { ClrCountersFeed } from './workflows/heap-trend/clr-tiers-sampler.js';
export type { UmdhTrend, UmdhTrendRule } from './report/heap-trend/umdh-trend.js';
export type { ValidationResult } from './report/schemas.js';
export type { FetchLike } from './symbols/download.js';
export type { SymbolLookup } from './symbols/lookup-types.js';
export type { SymbolFileProvider } from './symbols/supplier/symbol-provider.js';
export type { ImageCache } from './symbols/supplier/image-cache.js';
export type { ModuleSymbolsState, Symbolizer } from './symbols/supplier/symbolizer.js';
export type { SymbolModule } from './symbols/supplier/module-identity-key.js';
export type { AnalyzeEvent } from './workflows/analyze/analyze.js';
export type { EngineChoice } from './workflows/analyze/engine-choice.js';
export type { OutputFiles } from './workflows/analyze/outputs.js';
export type { DumpEvent, EstimateSource } from './workflows/dump/dump.js';
export type {
  HeapTrendFiles,
  HeapTrendProgress,
  HeapTrendUmdhOptions,
} from './workflows/heap-trend/run-heap-trend.js';
export type { DebuggerCommandFactory, DebuggerUse } from './workflows/heap-trend/sampler.js';
export type { LookupOptions, ProcessSelector } from './workflows/process-lookup.js';
export type { ExceptionSelection } from './workflows/watch/exception-codes.js';
export type {
  WatchEndReason,
  WatchEngine,
  WatchExceptionLine,
} from './workflows/watch/watch-records.js';
export type { WatchTargetSpec } from './workflows/watch/watch-target.js';
export type { WatchEvent } from './workflows/watch/watch.js';
