// `dump` (issue #8): one dump of a running process, now, without harming it (procdump -ma PID).
//
// cdb attaches noninvasively (`-pv`): the target's threads are suspended only while cdb is
// attached, nothing is injected, and ending the session cannot kill it. winedbg has no
// noninvasive mode: it attaches, writes `minidump "PATH"` and detaches (test/dump/dump-winedbg.test.ts).
//
// Order: resolve the process → estimate the size (winedbg: `info maps <pid>` from an unattached
// winedbg, so no suspension; cdb: `!address -summary` once attached) → check free disk space →
// reserve an owner-only file → write while polling its size → detach → read it back.
import { join } from 'node:path';
import { DebuggerSession } from '../../engine/debugger-session.js';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import type { SessionTarget } from '../../engine/dialects/types.js';
import { errorMessage, IoError, isHarnessError, TargetError } from '../../errors.js';
import { parseAddressSummary } from '../../parsers/address-summary.js';
import { parseDumpWritten } from '../../parsers/dump-written.js';
import { debuggerLaunchOptions, type DebuggerLaunchOptions } from '../debugger-options.js';
import {
  listProcesses,
  lookupOptionsFor,
  resolveProcess,
  type LookupOptions,
  type ProcessInfo,
} from '../process-lookup.js';
import {
  ensureOutDir,
  fileBytes,
  freeBytes,
  reserveDumpFile,
  setAsidePartial,
  watchFileGrowth,
} from './dump-file.js';
import { snapshotDumpName } from './dump-name.js';
import { explainTargetFailure, translateStartError } from './target-errors.js';
import { dumpWithTool } from './tool-dump.js';
import { verifyDump, type DumpVerification } from './verify-dump.js';
import { OptionsCheck } from '../check-options.js';
import { DIALECT_NAMES } from '../../engine/dialects/index.js';

/** With the debugger launch settings (debugger-options.ts), handed to the engine unchanged. */
export interface DumpOptions extends DebuggerLaunchOptions {
  engine: DialectName;
  target: { pid: number } | { name: string };
  kind?: 'full' | 'mini';
  outDir: string;
  overwrite?: boolean;
  /** Take the next free `name-2.dmp`, `name-3.dmp`… instead of failing on an existing file. */
  numbered?: boolean;
  /** Estimate the size first (default true). */
  estimate?: boolean;
  startTimeoutMs?: number;
  dumpTimeoutMs?: number;
  /** The process, already resolved (a trigger's series): no second listing before the dump. */
  resolved?: ProcessInfo;
  /** Process listing override (tests; the cdb emulator has no tasklist). */
  list?: LookupOptions['list'];
  /** The clock for the file name (tests). */
  now?: Date;
  signal?: AbortSignal;
  onEvent?: (event: DumpEvent) => void;
}

export type DumpEvent =
  | { type: 'resolved'; pid: number; name: string }
  | { type: 'estimate'; bytes: number | null; source: EstimateSource; note?: string }
  | { type: 'attached'; ms: number }
  | { type: 'progress'; path: string; bytes: number; bytesPerSecond: number; elapsedMs: number }
  | { type: 'written'; path: string; bytes: number; writeMs: number }
  | { type: 'detached'; detached: boolean }
  | { type: 'note'; message: string };

export type EstimateSource = 'winedbg-info-maps' | 'address-summary' | null;

export interface DumpResult {
  schemaVersion: 1;
  engine: DialectName;
  path: string;
  bytes: number;
  /** What was asked for (kept under its first name: records never rename a field). */
  kind: 'full' | 'mini';
  /** What was asked for, said plainly beside `actualKind`. */
  requestedKind: 'full' | 'mini';
  /** What the file is, read back (winedbg writes MiniDumpNormal whatever is asked). */
  actualKind: 'full' | 'mini' | null;
  pid: number;
  processName: string;
  estimateBytes: number | null;
  estimateSource: EstimateSource;
  /** Why there is no estimate (null when there is one, or none was asked for). */
  estimateNote: string | null;
  /** From the debugger's dump command to its reply. */
  writeMs: number;
  /** How long the target was held: from the debugger's attach prompt to the end of detach. */
  suspendedMs: number;
  attachMs: number;
  totalMs: number;
  verified: boolean;
  problems: string[];
  notes: string[];
  detached: boolean;
  targetAlive: boolean;
}

/** Headroom over the estimate: a dump carries streams besides memory. */
export const DISK_HEADROOM = 1.05;

/** A TargetError-free check, separate so it is testable: enough space for `required` bytes? */
export function checkDiskSpace(free: number | null, required: number | null): string | null {
  if (free === null || required === null) return null;
  const need = Math.ceil(required * DISK_HEADROOM);
  if (free >= need) return null;
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  return `not enough disk space: the dump needs about ${mb(need)}, ${mb(free)} are free`;
}

/** How big the dump will be (null: unknown), and why not, when the engine could not say. */
export interface Estimate {
  bytes: number | null;
  note?: string;
  /** The debugger's own line when the command that reads it does not exist in this debugger. */
  missing?: string;
}

export async function cdbEstimate(session: DebuggerSession): Promise<Estimate> {
  try {
    const result = await session.execute('!address -summary', { timeoutMs: 60_000 });
    const record = parseAddressSummary(result.output);
    const state = record.otherSections?.find((s) => /state/i.test(s.title));
    const commit = state?.rows.find((r) => /MEM_COMMIT/i.test(r.name));
    if (commit !== undefined) return { bytes: commit.totalSize };
    const missing = session.dialect.commandUnavailable?.(result.output) ?? null;
    if (missing !== null) {
      return {
        bytes: null,
        note: `!address is not available ("${missing}"); no size estimate`,
        missing,
      };
    }
    return { bytes: null, note: '!address -summary gave no MEM_COMMIT total; no size estimate' };
  } catch (error) {
    return {
      bytes: null,
      note: `!address -summary failed (${errorMessage(error).split('\n')[0] ?? ''}); no size estimate`,
    };
  }
}

export async function dumpProcess(options: DumpOptions): Promise<DumpResult> {
  new OptionsCheck('dumpProcess', options)
    .oneOf('engine', DIALECT_NAMES)
    .must('target', (t) => t !== null && typeof t === 'object', 'a target ({ pid } or { name })')
    .text('outDir')
    .oneOf('kind', ['full', 'mini'], true)
    .optionalMs('dumpTimeoutMs')
    .optionalFunction('onEvent')
    .optionalSignal();
  const emit = (event: DumpEvent) => options.onEvent?.(event);
  const kind = options.kind ?? 'full';
  const totalStart = performance.now();
  const notes: string[] = [];
  const lookup: LookupOptions = {
    ...lookupOptionsFor(options),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const proc =
    options.resolved !== undefined &&
    'pid' in options.target &&
    options.resolved.pid === options.target.pid
      ? options.resolved
      : await resolveProcess(
          'pid' in options.target ? { pid: options.target.pid } : { name: options.target.name },
          lookup,
        );
  emit({ type: 'resolved', pid: proc.pid, name: proc.name });
  await ensureOutDir(options.outDir);
  const tool = getDialect(options.engine).liveDump;
  if (tool !== undefined) return dumpWithTool(tool, options, proc, lookup);

  // ---- estimate (winedbg: before attaching, so it costs the target nothing) -----------------
  let estimate: Estimate = { bytes: null };
  let estimateSource: EstimateSource = null;
  // Either engine's estimate is kept, noted and announced the same way.
  const useEstimate = (found: Estimate, source: NonNullable<EstimateSource>) => {
    estimate = found;
    estimateSource = found.bytes === null ? null : source;
    if (found.note !== undefined) notes.push(found.note);
    emit({
      type: 'estimate',
      bytes: found.bytes,
      source: estimateSource,
      ...(found.note === undefined ? {} : { note: found.note }),
    });
  };
  const dialect = getDialect(options.engine);
  const estimateBy = options.estimate === false ? null : dialect.abilities.sizeEstimate;
  if (estimateBy !== null && kind === 'full' && !dialect.abilities.fullMemoryDumps) {
    // Committed memory is what a full dump holds; this debugger writes stacks and modules only
    // (a 0.1 MB file against an 18 MB "estimate"), so no figure is better than a wrong one.
    useEstimate(
      {
        bytes: null,
        note: `no size estimate: ${options.engine} writes a normal (mini) dump whatever is asked, not the full memory an estimate would measure`,
      },
      'winedbg-info-maps',
    );
  } else if (estimateBy === 'info-maps' && dialect.estimateDumpBytes !== undefined) {
    const outside = await dialect.estimateDumpBytes(proc.pid, {
      ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    useEstimate(outside, 'winedbg-info-maps');
  }
  // The space check runs against the cdb estimate once attached. Under winedbg the estimate is
  // what a full dump would need, not the normal dump winedbg writes, so it is not checked.
  const free = await freeBytes(options.outDir);

  const name = snapshotDumpName(proc.name, proc.pid, options.now ?? new Date());
  const path = await reserveDumpFile(options.outDir, name, {
    overwrite: options.overwrite === true,
    numbered: options.numbered === true,
  });

  const target: SessionTarget = dialect.abilities.noninvasiveAttach
    ? { kind: 'attach', pid: proc.pid, noninvasive: true }
    : { kind: 'attach', pid: proc.pid };
  let session: DebuggerSession;
  const attachStart = performance.now();
  try {
    session = await DebuggerSession.start({
      dialect: options.engine,
      target,
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      ...debuggerLaunchOptions(options),
      // Ctrl-C: the engine ends the session safely (detach), never a kill.
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    await setAsidePartial(path);
    throw translateStartError(error, proc.pid);
  }
  const heldFrom = session.initialStop.atMs;
  const attachMs = performance.now() - attachStart;
  emit({ type: 'attached', ms: roundMs(attachMs) });

  let writeMs = 0;
  let output = '';
  let failure: unknown = null;
  try {
    if (estimateBy === 'address-summary' && kind === 'full') {
      useEstimate(await cdbEstimate(session), 'address-summary');
      const cdbSpace = checkDiskSpace(free, estimate.bytes);
      if (cdbSpace !== null) throw new IoError(`${cdbSpace} in ${options.outDir}`);
    }
    const writeStart = performance.now();
    const stopProgress = watchFileGrowth(path, (p) =>
      emit({
        type: 'progress',
        path,
        bytes: p.bytes,
        bytesPerSecond: p.bytesPerSecond,
        elapsedMs: p.elapsedMs,
      }),
    );
    try {
      output = (
        await session.writeDump(path, kind, { timeoutMs: options.dumpTimeoutMs ?? 600_000 })
      ).output;
    } finally {
      stopProgress();
    }
    writeMs = performance.now() - writeStart;
  } catch (error) {
    failure = error;
  }
  const closed = await session.close();
  const suspendedMs = performance.now() - heldFrom;
  emit({ type: 'detached', detached: closed.detached });

  const bytes = await fileBytes(path);
  const written = parseDumpWritten(output, session.dialect.writeDumpCommand(path, kind));
  if (failure !== null || !written.success || bytes === 0) {
    const kept = await setAsidePartial(path);
    const known = explainTargetFailure(output, proc.pid);
    const where = kept === null ? 'nothing was kept' : `the partial file is ${kept}`;
    if (known !== null)
      throw new TargetError(known.reason, `${known.shortMessage} (${where})`, {
        lastOutput: known.lastOutput,
        cause: failure ?? undefined,
      });
    if (failure !== null && isHarnessError(failure)) throw failure;
    throw new IoError(
      `the dump was not written: ${written.error ?? (bytes === 0 ? 'the file is empty' : failure instanceof Error ? failure.message : 'unknown error')} (${where})`,
      { lastOutput: output.split('\n').slice(-10) },
    );
  }
  emit({ type: 'written', path, bytes, writeMs: roundMs(writeMs) });

  const check = await verifyDump(path, { pid: proc.pid, kind }, { engine: options.engine });
  for (const note of check.notes) notes.push(note);
  if (!check.verified) {
    // A file the reader cannot make sense of is not a dump: set it aside, keep the bytes.
    const problemsText = check.problems.join('; ');
    if (check.kind === undefined) {
      const kept = await setAsidePartial(path);
      throw new IoError(
        `the dump does not read back: ${problemsText}${kept === null ? '' : ` (kept as ${kept})`}`,
      );
    }
  }
  let targetAlive = false;
  try {
    targetAlive = (await listProcesses(lookup)).some((p) => p.pid === proc.pid);
  } catch {
    targetAlive = false;
  }
  return {
    ...writtenDump(options.engine, path, bytes, kind, check, proc),
    estimateBytes: estimate.bytes,
    estimateSource,
    estimateNote: estimate.note ?? null,
    writeMs: roundMs(writeMs),
    suspendedMs: roundMs(suspendedMs),
    attachMs: roundMs(attachMs),
    totalMs: roundMs(performance.now() - totalStart),
    verified: check.verified,
    problems: check.problems,
    notes,
    detached: closed.detached,
    targetAlive,
  };
}

/** Where a dump for this process would go (for messages before the workflow runs). */
export function dumpPathFor(outDir: string, processName: string, pid: number, now: Date): string {
  return join(outDir, snapshotDumpName(processName, pid, now));
}

/** The head of a result: which file, of which process, asked as what and read back as what. */
export function writtenDump(
  engine: DialectName,
  path: string,
  bytes: number,
  kind: 'full' | 'mini',
  check: DumpVerification,
  proc: ProcessInfo,
): Pick<DumpResult, WrittenDumpField> {
  return {
    schemaVersion: 1,
    engine,
    path,
    bytes,
    kind,
    requestedKind: kind,
    actualKind: check.kind ?? null,
    pid: proc.pid,
    processName: proc.name,
  };
}

type WrittenDumpField =
  | 'schemaVersion'
  | 'engine'
  | 'path'
  | 'bytes'
  | 'kind'
  | 'requestedKind'
  | 'actualKind'
  | 'pid'
  | 'processName';

/** Milliseconds in results: two decimals. */
export function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}
