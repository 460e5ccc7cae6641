// The per-heap sampler (Windows, cdb): every sample is its own short NONINVASIVE attach
// (cdb `-pv`: the target's threads are suspended, no debug port is taken, nothing cdb does can end
// the target), the dialect's heap summary command (cdb `!heap -s -h 0`), then a clean exit. The target is suspended from the attach to the
// exit; the sample records that time, measured from spawning cdb to its exit (an upper bound: it
// includes cdb's own start-up before the attach).
import type { DebuggerSession } from '../../engine/debugger-session.js';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import { DebuggerNotFoundError, isHarnessError } from '../../errors.js';
import { parseAddressSummary } from '../../parsers/address-summary.js';
import { parseHeapSummary } from '../../parsers/heap-summary.js';
import { SosLoader } from '../watch/sos-loader.js';
import { attachRetention } from './attach-retention.js';
import { attachNoninvasive } from './noninvasive-attach.js';
import { readClrOutputs } from './clr-readings.js';
import { categoriesFromAddressSummary } from './memory-categories.js';
import type { AddressSummaryRecord } from '../../parsers/address-summary.js';
import type { HeapTrendSampleHeap } from '../../report/heap-trend/types.js';
import {
  TargetGoneError,
  type DebuggerCommandFactory,
  type HeapSampler,
  type RetentionSampler,
  type SampleReading,
} from './sampler.js';

export interface AttachSamplerOptions {
  engine: DialectName;
  pid: number;
  env?: NodeJS.ProcessEnv;
  debuggerPath?: string;
  symbolPath?: string;
  startTimeoutMs?: number;
  commandTimeoutMs?: number;
  debuggerCommandFor?: DebuggerCommandFactory;
  /** Whether the target still runs; decides if a failed attach means "the target has exited". */
  isTargetAlive?: (pid: number) => Promise<boolean>;
  /**
   * Also the .NET heap: SOS `!eeheap -gc` and `!dumpheap -stat -live` in the same attach, the GC's
   * committed bytes as the `managed heap` category, and retention (attach-retention.ts).
   */
  clr?: boolean;
}

/** Windows: `process.kill(pid, 0)` opens the process and reports whether it exists. */
export function processExists(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
    return Promise.resolve(true);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return Promise.resolve((error as NodeJS.ErrnoException).code === 'EPERM');
  }
}

export function createAttachSampler(options: AttachSamplerOptions): HeapSampler | RetentionSampler {
  const alive = options.isTargetAlive ?? processExists;
  const dialect = getDialect(options.engine);
  const sampling = dialect.heapSampling;
  const command = sampling?.style === 'attach-per-sample' ? sampling.command(options.pid) : '';
  let methodTables = new Map<string, string>();
  /** One attach: the reading, and SOS's refusal when it found the heap mid-GC. */
  const attachOnce = async (
    index: number,
    signal?: AbortSignal,
  ): Promise<SampleReading & { refusal?: string }> => {
    const began = performance.now();
    let session: DebuggerSession;
    try {
      session = await attachNoninvasive(options, { purpose: 'sample', index }, signal);
    } catch (error) {
      if (isHarnessError(error) && error.code === 'TARGET' && !(await alive(options.pid))) {
        throw new TargetGoneError(`the target (pid ${options.pid}) is gone: ${error.shortMessage}`);
      }
      throw error;
    }
    const warnings: string[] = [];
    let output: string;
    let truncated = false;
    let summary: AddressSummaryRecord | undefined;
    let managed: ClrSample = {};
    try {
      const result = await session.execute(command, {
        ...(signal === undefined ? {} : { signal }),
      });
      output = result.output;
      // A heap command that cannot run at all is no empty process: the run stops here with the
      // debugger's own line (exit 3), never a report of 0 KB and "no leak suspected".
      const missing = dialect.commandUnavailable?.(output) ?? null;
      if (missing !== null) throw heapCommandMissing(dialect.name, command, missing);
      truncated = result.truncated;
      if (result.truncated) warnings.push(`${command} output was truncated`);
      const categoriesCommand =
        sampling?.style === 'attach-per-sample' ? sampling.categoriesCommand : undefined;
      if (categoriesCommand !== undefined) {
        const reply = await session.execute(categoriesCommand, {
          ...(signal === undefined ? {} : { signal }),
        });
        const parsed = parseAddressSummary(reply.output);
        if (parsed.usage.length > 0) summary = parsed;
        else {
          const said = reply.output.trim().split('\n')[0] ?? '';
          warnings.push(
            `${categoriesCommand} gave no usage table${said === '' ? '' : ` (${said})`}`,
          );
        }
      }
      if (options.clr === true) {
        managed = await clrSample(session, warnings, signal);
        if (managed.methodTables !== undefined) methodTables = managed.methodTables;
      }
    } finally {
      const end = await session.close();
      if (end.forced)
        warnings.push(
          `${dialect.name} did not exit after ${dialect.endCommands(session.target).join(' + ')} and was killed (noninvasive: the target is unharmed)`,
        );
    }
    const suspendedMs = Math.round((performance.now() - began) * 10) / 10;
    const record = parseHeapSummary(output);
    // Every process has a heap (its process heap), so a complete reply that lists none is a
    // failure of !heap itself, whatever its words: the common one on Windows is missing ntdll
    // symbols, whose exact text no recording here shows. Stopped like a missing extension.
    if (record.heaps.length === 0 && (record.segmentHeaps ?? []).length === 0 && !truncated) {
      throw heapCommandFailed(dialect.name, command, output);
    }
    for (const warning of record.warnings) warnings.push(warning);
    const heaps: HeapTrendSampleHeap[] = record.heaps.map((heap) => ({
      id: heap.address,
      reservedKb: heap.reservedKb,
      committedKb: heap.committedKb,
    }));
    for (const segment of record.segmentHeaps ?? []) {
      const committed = segment['committedKb'];
      const reserved = segment['reservedKb'];
      if (typeof committed !== 'number') continue;
      heaps.push({
        id: segment.address,
        ...(typeof reserved === 'number' ? { reservedKb: reserved } : {}),
        committedKb: committed,
      });
    }
    // The GC's committed bytes are inside `<unknown>` (private data) in !address -summary.
    const managedBytes =
      managed.clrGenerations === undefined
        ? undefined
        : managed.clrGenerations.reduce((n, g) => n + g.committedKb, 0) * 1024;
    const categories =
      summary === undefined
        ? undefined
        : categoriesFromAddressSummary(summary, managedBytes === undefined ? {} : { managedBytes });
    return {
      heaps,
      // From cdb's spawn to its exit: the attach suspends the target inside that span, so it
      // holds the stop and cdb's own start-up and exit (an upper bound).
      suspendedMs,
      suspendedHow: 'upper-bound',
      warnings,
      ...(categories === undefined
        ? {}
        : { categories: categories.categories, memoryTotals: categories.totals }),
      ...(managed.clrTypes === undefined ? {} : { clrTypes: managed.clrTypes }),
      ...(managed.clrGenerations === undefined ? {} : { clrGenerations: managed.clrGenerations }),
      ...(managed.refusal === undefined ? {} : { refusal: managed.refusal }),
    };
  };
  const sampler: HeapSampler = {
    engine: options.engine,
    source: sampling?.source ?? 'heap',
    async sample(index: number, signal?: AbortSignal): Promise<SampleReading> {
      const { refusal: first, ...reading } = await attachOnce(index, signal);
      if (first === undefined) return reading;
      // The attach caught the GC mid-collection (dotnet/diagnostics#3214): SOS will not walk the
      // heap. One more attach; if SOS refuses again, the sample is kept but marked unused, in
      // SOS's words, and its native series are left out too (the same sample in every report).
      const { refusal, ...again } = await attachOnce(index, signal);
      const warnings = [
        ...reading.warnings,
        `sample ${index}: SOS: ${first} (the attach caught a GC mid-collection); attached again`,
        ...again.warnings,
      ];
      return {
        ...again,
        suspendedMs: Math.round((reading.suspendedMs + again.suspendedMs) * 10) / 10,
        warnings,
        ...(refusal === undefined
          ? {}
          : { unused: `SOS: ${refusal} (attached twice, mid-GC both times)` }),
      };
    },
    async close(): Promise<void> {
      // Nothing stays open between samples.
    },
  };
  if (options.clr !== true) return sampler;
  return {
    ...sampler,
    methodTableOf: (type) => methodTables.get(type),
    async retention(suspects, budgetMs, objectsPerType) {
      const result = await attachRetention(options, suspects, budgetMs, objectsPerType);
      return {
        entries: result.entries,
        note: `the retention attach held the target ${result.suspendedMs} ms (noninvasive)`,
      };
    },
  };
}

/** What the user reads when the debugger has no extension for the heap command. */
function heapCommandMissing(engine: string, command: string, line: string): DebuggerNotFoundError {
  return new DebuggerNotFoundError(
    `${engine} cannot run ${command} here; it said "${line}" (the debugger lacks the extension that serves the command, as the Debugger Engine from NuGet does without ext.dll/exts.dll). Nothing was sampled: per-heap figures need Debugging Tools for Windows (winget install Microsoft.WinDbg, or the Windows SDK's Debugging Tools), or use --engine winedbg beside Wine (committed memory).`,
  );
}

/** A heap command that ran and listed no heap at all: its first lines say why. */
function heapCommandFailed(engine: string, command: string, output: string): DebuggerNotFoundError {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    // The prompt echoed before a command: 0:000> !heap -s -h 0
    .filter((line) => line !== '' && !/^\d+:\d+>/.test(line));
  const said = lines.slice(0, 3).join(' / ');
  return new DebuggerNotFoundError(
    `${engine}'s ${command} listed no heap (every process has one), so nothing was sampled; it said: ${said === '' ? '(nothing)' : `"${said}"`}. !heap reads ntdll's heap structures through ntdll's symbols: give a symbol path that has them (--symbol-path srv*C:\\symbols*https://msdl.microsoft.com/download/symbols), or use --engine winedbg beside Wine (committed memory).`,
    { command, lastOutput: lines },
  );
}

type ClrSample = Pick<SampleReading, 'clrTypes' | 'clrGenerations'> & {
  methodTables?: Map<string, string>;
  /** SOS would not walk a heap caught mid-GC: its words. */
  refusal?: string;
};

// `Unrecognized command 'eeheap' because managed hosting failed` (SOS 10 in a debugger that cannot
// host its managed part: the real Debugger Engine under Wine with only sos.dll in winext).
const SOS_FAILED_RE =
  /^(?:Unrecognized command .*|.*managed hosting failed.*|No export \S+ found)$/m;

/** SOS's view of the .NET heap in this attach; a reason in `warnings` when there is none. */
async function clrSample(
  session: DebuggerSession,
  warnings: string[],
  signal?: AbortSignal,
): Promise<ClrSample> {
  const sos = new SosLoader(session, 30_000);
  if (!(await sos.tryLoad())) {
    warnings.push(`SOS unavailable: ${sos.lastError ?? '.loadby sos failed'}`);
    return {};
  }
  const run = async (command: string): Promise<string> =>
    (await session.execute(command, { ...(signal === undefined ? {} : { signal }) })).output;
  const eeheap = await run('!eeheap -gc');
  const dumpheap = await run('!dumpheap -stat -live');
  const failed = SOS_FAILED_RE.exec(`${eeheap}\n${dumpheap}`);
  if (failed !== null) {
    warnings.push(`SOS unavailable: ${failed[0].trim()}`);
    return {};
  }
  const reading = readClrOutputs(eeheap, dumpheap);
  for (const warning of reading.warnings) warnings.push(warning);
  if (reading.refusal !== undefined) return { refusal: reading.refusal };
  return {
    clrGenerations: reading.generations,
    clrTypes: reading.types,
    methodTables: reading.methodTables,
  };
}
