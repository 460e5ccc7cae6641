// One dump, start to record. The builtin reader looks first (milliseconds, no debugger): a file
// that is empty, truncated or not a minidump is reported right there and never reaches a
// debugger. Then the chosen engine runs. Failures become records, never exceptions, except an
// abort (the user's Ctrl-C: no half record is written) and "no debugger at all" (fatal for the
// batch). A debugger that dies on a dump is given one more try; dying twice quarantines the dump
// (Symbolicator's rule for dumps that crash the processor).
import { pathBytes64, pathText, type BytePath } from '../../common/byte-path.js';
import { processDump } from '../../processor/process-dump.js';
import { truncationLine } from '../../processor/truncated-streams.js';
import {
  AbortedError,
  errorToJSON,
  InternalError,
  isHarnessError,
  type HarnessErrorCode,
} from '../../errors.js';
import type {
  AnalyzeDumpRecord,
  AnalyzeEngineName,
  AnalyzeError,
} from '../../report/analyze/analyze-record.js';
import type { Signer } from '../../report/analyze/signature.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import { builtinFields, dumpFacts, type BuiltinFields } from './builtin-record.js';
import { bucketUnlessCut } from './dump-bucket.js';
import { coreDumpAnalysis } from './core-engine.js';
import type { DebuggerRunResult } from './debugger-run.js';
import { debuggerDumpPath } from './debugger-path.js';
import type { SymbolSupplier } from '../../symbols/supplier/symbol-supplier.js';
import type { ScriptStep } from './triage-script.js';

/** How many times a dump may crash the debugger before it is quarantined. */
export const CRASHES_BEFORE_QUARANTINE = 2;

export interface DumpRunContext {
  engine: AnalyzeEngineName;
  steps: readonly ScriptStep[];
  outDir: string;
  timeoutMs: number;
  signer: Signer;
  signal?: AbortSignal;
  debuggerPath?: string;
  debuggerCommandPrefix?: { file: string; args: readonly string[] };
  symbolPath?: string;
  /**
   * Symbol files and module images for the processor's walk (one per batch, shared: its caches
   * serve every dump). Symbol files name the builtin engine's frames only.
   */
  supplier?: SymbolSupplier;
  env?: NodeJS.ProcessEnv;
  recordDir?: string;
  /** Builtin engine: walk the crashing thread's stack (default true). */
  walkStacks?: boolean;
  /** Told when a dump is retried after a debugger crash. */
  onRetry?: (file: string, error: AnalyzeError) => void;
}

export async function analyzeOneDump(
  path: BytePath,
  hashed: { sha256: string; size: number; bytes?: Buffer },
  ctx: DumpRunContext,
): Promise<AnalyzeDumpRecord> {
  const file = pathText(path);
  // A tool of Linux core dumps (dotnet-dump) reads no minidump: its own path (core-dump.ts),
  // loaded only then.
  const core = coreDumpAnalysis(ctx.engine);
  if (core !== undefined) {
    return (await import('./core-dump.js')).analyzeCoreDump(path, hashed, ctx, core);
  }
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Every engine gets the processor's walk: the builtin record, or the baseline a debugger's
  // frames must beat (frame-baseline.ts).
  const walk = ctx.walkStacks !== false;
  const inspected = await processDump(path, {
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    ...(hashed.bytes === undefined ? {} : { bytes: hashed.bytes }),
    threads: walk ? 'exception' : 'none',
    streams: 'triage',
    ...(ctx.supplier === undefined ? {} : { supplier: ctx.supplier }),
  });
  if (!inspected.ok) {
    return {
      ...emptyRecord(path, hashed, ctx.engine),
      error: {
        code: inspected.error.code,
        message: `not a readable minidump: ${inspected.error.message}`,
      },
      warnings: inspected.warnings,
      timings: { totalMs: elapsed(), commands: [] },
    };
  }
  const base = builtinFields(inspected);
  const cut = truncationLine(inspected);
  if (cut !== null) {
    // Read as far as it goes and bucketed from what was read, as Breakpad and rust-minidump
    // process a cut dump best-effort (upload truncation is common), never handed to a debugger,
    // and said loudly: `truncated: true`, the cut in its warnings, exit 4 for the batch.
    // A cut that leaves neither the exception nor a frame leaves nothing to bucket: failed.
    const record = fromBuiltin(path, hashed, base, ctx.engine);
    record.truncated = true;
    record.timings = { totalMs: elapsed(), commands: [] };
    if (record.exception === null && record.frames.length === 0) {
      record.ok = false;
      record.error = { code: 'BAD_DUMP', message: cut };
      record.bucket = null;
      return record;
    }
    record.warnings = [cut, ...record.warnings];
    record.attempts = 1;
    record.bucket = ctx.signer.sign(record);
    return record;
  }
  if (ctx.engine === 'builtin') {
    const record = fromBuiltin(path, hashed, base, 'builtin');
    if (inspected.images !== undefined) record.images = inspected.images;
    if (inspected.symbols !== undefined) {
      record.symbols = { modules: inspected.symbols };
      if (record.frames.some((f) => f.function !== undefined)) {
        record.notAvailable = record.notAvailable.filter((n) => n !== 'frames.symbols');
      }
    }
    record.attempts = 1;
    record.timings = { totalMs: elapsed(), commands: [] };
    record.bucket = bucketUnlessCut(record, ctx.signer);
    return record;
  }
  const dialect = ctx.engine;
  // Loaded here, not at the top: the builtin engine never loads the debugger engine or node-pty.
  const { runDebuggerOnDump } = await import('./debugger-run.js');
  // A name that is not valid UTF-8 reaches the debugger through a link with a plain name.
  const handedOver = await debuggerDumpPath(path, hashed.sha256, ctx.outDir);
  let lastError: AnalyzeError | undefined;
  try {
    for (let attempt = 1; attempt <= CRASHES_BEFORE_QUARANTINE; attempt++) {
      let run: DebuggerRunResult;
      try {
        run = await runDebuggerOnDump({
          dialect,
          dumpPath: handedOver.path,
          sha256: hashed.sha256,
          steps: ctx.steps,
          facts: dumpFacts(inspected),
          base,
          outDir: ctx.outDir,
          timeoutMs: ctx.timeoutMs,
          ...optional(ctx),
        });
      } catch (error) {
        // Codes, not instanceof: the engine is a lazily imported module graph, and under a CJS
        // loader (mocha + tsx) its error classes are a second copy (errors.ts isHarnessError).
        const code: HarnessErrorCode | undefined = isHarnessError(error) ? error.code : undefined;
        if (ctx.signal?.aborted === true || code === 'ABORTED') {
          throw code === 'ABORTED' ? error : new AbortedError('analysis interrupted');
        }
        if (code === 'DEBUGGER_NOT_FOUND') throw error;
        lastError = toAnalyzeError(error);
        const record = fromBuiltin(path, hashed, base, ctx.engine);
        record.ok = false;
        record.error = lastError;
        record.attempts = attempt;
        record.timings = { totalMs: elapsed(), commands: [] };
        record.bucket = null;
        if (code === 'DEBUGGER_EXITED') {
          if (attempt < CRASHES_BEFORE_QUARANTINE) {
            ctx.onRetry?.(file, lastError);
            continue;
          }
          record.quarantined = true;
          record.error = {
            ...lastError,
            message: `quarantined: the debugger exited ${attempt} times on this dump. ${lastError.message}`,
          };
        }
        return record;
      }
      const record = fromBuiltin(path, hashed, base, ctx.engine);
      const f = run.fields;
      record.attempts = attempt;
      record.exception = f.exception;
      record.frames = f.frames;
      if (f.processName !== undefined && record.process.name === undefined) {
        record.process.name = f.processName;
      }
      if (f.clrException !== undefined) record.clrException = f.clrException;
      if (f.heapSummary !== undefined) record.heapSummary = f.heapSummary;
      if (f.analyze !== undefined) record.analyze = f.analyze;
      record.notAvailable = f.notAvailable;
      record.warnings = [...record.warnings, ...f.warnings];
      if (f.framesFrom !== 'debugger' && inspected.images !== undefined) {
        record.images = inspected.images;
      }
      record.rawOutputs = run.rawOutputs;
      record.timings = {
        totalMs: elapsed(),
        commands: run.commands,
        debuggerMs: Math.round(run.debuggerMs),
      };
      record.bucket = ctx.signer.sign(record);
      return record;
    }
  } finally {
    await handedOver.release();
  }
  // Unreachable: the loop returns on its last attempt.
  throw new InternalError(`analyze: no result for ${file} (${lastError?.message ?? ''})`);
}

function optional(ctx: DumpRunContext) {
  return {
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    ...debuggerLaunchOptions(ctx),
    ...(ctx.recordDir === undefined ? {} : { recordDir: ctx.recordDir }),
  };
}

/**
 * `file` (the path as text) and, for a name that is not valid UTF-8, `fileBytes` (its exact
 * bytes, base64): what records and resume keys say about a path.
 */
export function fileFields(path: BytePath): { file: string; fileBytes?: string } {
  const bytes = pathBytes64(path);
  return { file: pathText(path), ...(bytes === undefined ? {} : { fileBytes: bytes }) };
}

/** A record that says nothing yet: the base of every failure record and of the builtin one. */
export function emptyRecord(
  path: BytePath,
  hashed: { sha256: string; size: number },
  engine: AnalyzeEngineName,
): AnalyzeDumpRecord {
  return {
    schemaVersion: 1,
    ...fileFields(path),
    fileSize: hashed.size,
    size: hashed.size,
    sha256: hashed.sha256,
    ok: false,
    attempts: 0,
    engine,
    dumpKind: null,
    process: {},
    exception: null,
    frames: [],
    modules: { count: 0, withDebugId: 0, withoutDebugId: 0 },
    notAvailable: [],
    rawOutputs: [],
    timings: { totalMs: 0, commands: [] },
    warnings: [],
    bucket: null,
  };
}

function fromBuiltin(
  path: BytePath,
  hashed: { sha256: string; size: number },
  base: BuiltinFields,
  engine: AnalyzeEngineName,
): AnalyzeDumpRecord {
  return {
    ...emptyRecord(path, hashed, engine),
    ok: true,
    dumpKind: base.dumpKind,
    dumpTimestamp: base.dumpTimestamp,
    process: { ...base.process },
    exception: base.exception,
    frames: base.frames,
    modules: base.modules,
    threadCount: base.threadCount,
    memory: base.memory,
    ...(base.clr === undefined ? {} : { clr: base.clr }),
    ...(base.walkCut === undefined ? {} : { walkCut: base.walkCut }),
    ...(base.assertion === undefined ? {} : { assertion: base.assertion }),
    notAvailable: base.notAvailable,
    warnings: base.warnings,
  };
}

function toAnalyzeError(error: unknown): AnalyzeError {
  return errorToJSON(error);
}
