// Which engines read Linux core dumps instead of minidumps: those whose dialect has `coreDumps`
// (dotnet-dump). Asked by the per-dump path (analyze-one.ts), the folder scan and the engine
// choice, never by the engine's name.
import { getDialect, type CoreDumpAnalysis } from '../../engine/dialects/index.js';
import type { AnalyzeEngineName } from '../../report/analyze/analyze-record.js';

/** The engine's core-dump reader, or undefined for an engine that reads minidumps. */
export function coreDumpAnalysis(engine: AnalyzeEngineName): CoreDumpAnalysis | undefined {
  return engine === 'builtin' ? undefined : getDialect(engine).coreDumps;
}

/** The names a folder scan takes for this engine besides the minidump ones. */
export function engineExtensions(engine: AnalyzeEngineName): readonly string[] {
  return coreDumpAnalysis(engine)?.extensions ?? [];
}
