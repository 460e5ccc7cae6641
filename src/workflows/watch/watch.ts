// `watch`: attach to (or launch) a live process, stop on the exceptions the user selected,
// identify each one, write a dump when the filters say so, log every exception, and leave the
// target running: the harness must never be the reason a watched process dies.
//
// watch() is a short orchestration of named steps: resolve the target, start the session, arm
// the exception breaks, follow the stops (per stop: identify → decide → dump → resume with
// pass-to-the-program semantics, cdb `gn`, winedbg `pass`), end, summarise. Every way out —
// --duration, AbortSignal (Ctrl-C), the target exiting, --exit-after-max, an error in the harness —
// ends in the engine's close(), which lets a stop being printed finish, passes any pending
// exception on, breaks in if running and detaches (cdb `qd` under `-pd`, winedbg `detach` +
// `quit`).
import { join } from 'node:path';
import { DebuggerSession } from '../../engine/debugger-session.js';
import type { DialectName } from '../../engine/dialects/index.js';
import type { SessionTarget } from '../../engine/dialects/types.js';
import { UsageError } from '../../errors.js';
import { builtinSupplier } from '../analyze/symbols-setup.js';
import { ensureOutDir } from '../dump/dump-file.js';
import { translateStartError } from '../dump/target-errors.js';
import { debuggerLaunchOptions, type DebuggerLaunchOptions } from '../debugger-options.js';
import { listProcesses, lookupOptionsFor, type LookupOptions } from '../process-lookup.js';
import { DumpPolicy } from './dump-policy.js';
import { CPP_CODES, type ExceptionSelection } from './exception-codes.js';
import { ExceptionHandler, round } from './exception-handler.js';
import { ExceptionLog } from './exception-log.js';
import { parseFilterSet } from './filter.js';
import { SosLoader } from './sos-loader.js';
import { buildSummary, writeSummary } from './watch-summary.js';
import { resolveWatchTarget, type WatchedProcess, type WatchTargetSpec } from './watch-target.js';
import type {
  WatchEndReason,
  WatchEngine,
  WatchExceptionLine,
  WatchSummary,
} from './watch-records.js';
import { DOTNET_DIAG_ENGINE, watchDotnet } from './watch-dotnet.js';
import { OptionsCheck } from '../check-options.js';
import { DIALECT_NAMES } from '../../engine/dialects/index.js';

export type { WatchTargetSpec } from './watch-target.js';

/** With the debugger launch settings (debugger-options.ts), handed to the engine unchanged. */
export interface WatchOptions extends DebuggerLaunchOptions {
  /** A debugger, or `dotnet-diag`: a .NET process on Linux through its diagnostics channel. */
  engine: WatchEngine;
  target: WatchTargetSpec;
  outDir: string;
  /** Which first chances stop the target; second chances always do. Default: CLR only. */
  selection?: Partial<ExceptionSelection>;
  include?: readonly string[];
  exclude?: readonly string[];
  skip?: number;
  maxDumps?: number;
  oncePerBucket?: boolean;
  /** End the watch (detaching) once --max-dumps dumps are written. */
  exitAfterMax?: boolean;
  dumpKind?: 'full' | 'mini';
  durationMs?: number;
  /** Top frames kept per exception (default 10). */
  frames?: number;
  verifyDumps?: boolean;
  startTimeoutMs?: number;
  commandTimeoutMs?: number;
  dumpTimeoutMs?: number;
  /**
   * The Wine prefix whose drive_c recorded `C:\` module paths are looked up in when a written
   * dump is bucketed (as analyze's `winePrefix`; unnamed: not looked up, whatever $WINEPREFIX says).
   */
  winePrefix?: string;
  /** Process listing override (tests; the cdb emulator has no tasklist). */
  list?: LookupOptions['list'];
  signal?: AbortSignal;
  onEvent?: (event: WatchEvent) => void;
}

export type WatchEvent =
  | { type: 'waiting'; name: string }
  | { type: 'attached'; engine: WatchEngine; pid?: number; name?: string; startMs: number }
  | { type: 'exception'; line: WatchExceptionLine }
  | { type: 'dump-progress'; path: string; bytes: number; bytesPerSecond: number }
  | { type: 'note'; message: string }
  | { type: 'ending'; reason: WatchEndReason }
  | { type: 'ended'; summary: WatchSummary };

const DEFAULT_FRAMES = 10;
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/**
 * Ending gets longer than the engine's default: a stop that is being printed may take up to 10 s
 * to reach its prompt (symbol loading for its backtrace) before the detach.
 */
const CLOSE_TIMEOUT_MS = 25_000;

function selectionOf(options: WatchOptions): ExceptionSelection {
  const s = options.selection ?? {};
  return {
    clr: s.clr ?? true,
    av: s.av ?? false,
    cpp: s.cpp ?? false,
    codes: s.codes ?? [],
    allFirstChance: s.allFirstChance ?? false,
  };
}

function checkOptions(options: WatchOptions): void {
  const counts: [string, number | undefined][] = [
    ['--skip', options.skip],
    ['--max-dumps', options.maxDumps],
    ['--frames', options.frames],
  ];
  for (const [name, value] of counts) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new UsageError(`${name} must be a whole number >= 0, got ${value}`);
    }
  }
  if (options.durationMs !== undefined && !(options.durationMs > 0)) {
    throw new UsageError(`--duration must be > 0`);
  }
  if (options.exitAfterMax === true && options.maxDumps === undefined) {
    throw new UsageError('--exit-after-max needs --max-dumps');
  }
}

export async function watch(options: WatchOptions): Promise<WatchSummary> {
  new OptionsCheck('watch', options)
    .oneOf('engine', [...DIALECT_NAMES, DOTNET_DIAG_ENGINE])
    .must(
      'target',
      (t) => t !== null && typeof t === 'object',
      'a target ({ pid }, { name } or { launch })',
    )
    .text('outDir')
    .optionalCount('maxDumps')
    .optionalCount('skip', 0)
    .optionalMs('durationMs')
    .oneOf('dumpKind', ['full', 'mini'], true)
    .texts('include', true)
    .texts('exclude', true)
    .optionalFunction('onEvent')
    .optionalSignal();
  checkOptions(options);
  // .NET on Linux: no debugger, the runtime's own diagnostics channel (watch-dotnet.ts).
  if (options.engine === DOTNET_DIAG_ENGINE) return watchDotnet(options);
  const engine: DialectName = options.engine;
  const emit = (event: WatchEvent) => options.onEvent?.(event);
  const selection = selectionOf(options);
  const lookup = lookupOptionsFor({ ...options, engine });
  const { proc, sessionTarget } = await resolveWatchTarget(
    options.target,
    lookup,
    options.signal,
    (name) => emit({ type: 'waiting', name }),
  );
  await ensureOutDir(options.outDir);
  const log = new ExceptionLog(join(options.outDir, 'exceptions.ndjson'));
  const startedAt = new Date();
  const startMs = performance.now();
  const session = await startSession(engine, options, sessionTarget, proc, log);

  // ---- from here on, every exit goes through the engine's close() ---------------------------
  const ending = new WatchEnding(options);
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const sos =
    session.dialect.abilities.sos && selection.clr
      ? new SosLoader(session, commandTimeoutMs)
      : null;
  // Dumps are bucketed as analyze buckets them: the same symbol path (--symbols, else
  // _NT_SYMBOL_PATH) and images found the same way.
  const supplier = await builtinSupplier({
    ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
    ...(options.winePrefix === undefined ? {} : { winePrefix: options.winePrefix }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const handler = new ExceptionHandler({
    session,
    proc,
    outDir: options.outDir,
    selection,
    filters: parseFilterSet(options.include ?? [], options.exclude ?? []),
    policy: new DumpPolicy({
      ...(options.skip === undefined ? {} : { skip: options.skip }),
      ...(options.maxDumps === undefined ? {} : { maxDumps: options.maxDumps }),
      ...(options.oncePerBucket === undefined ? {} : { oncePerBucket: options.oncePerBucket }),
    }),
    dumpKind: options.dumpKind ?? 'full',
    frames: options.frames ?? DEFAULT_FRAMES,
    commandTimeoutMs,
    dumpTimeoutMs: options.dumpTimeoutMs ?? 300_000,
    verifyDumps: options.verifyDumps !== false,
    bucketing: { supplier },
    sos,
    onDumpProgress: (progress) => emit({ type: 'dump-progress', ...progress }),
  });
  const writeLine = (line: WatchExceptionLine) => {
    log.append(line);
    emit({ type: 'exception', line });
  };

  let failure: unknown = null;
  let exitedByItself = false;
  try {
    await armExceptionBreaks(session, selection, commandTimeoutMs);
    if (sos !== null) for (const note of await sos.prepare()) emit({ type: 'note', message: note });
    emit({
      type: 'attached',
      engine,
      ...(proc.pid === undefined ? {} : { pid: proc.pid }),
      name: proc.name,
      startMs: round(session.startDurationMs),
    });
    exitedByItself = await followStops(session, handler, ending, {
      exitAfterMax: options.exitAfterMax === true,
      sos,
      writeLine,
      emit,
    });
  } catch (error) {
    failure = error;
    ending.end('error');
  }

  // ---- ending: never harm the target ---------------------------------------------------------
  ending.dispose();
  const endReason: WatchEndReason = ending.reason ?? 'error';
  emit({ type: 'ending', reason: endReason });
  const closed = await session.close({ timeoutMs: CLOSE_TIMEOUT_MS });
  await supplier.close();
  log.close();
  const exited = exitedByItself || closed.targetExited;
  const summary = buildSummary({
    engine,
    proc,
    outDir: options.outDir,
    log,
    startedAt,
    startMs,
    detached: closed.detached && !exited,
    targetAlive: exited ? null : launchedAndGone(options.target, await stillRunning(proc, lookup)),
    endReason,
    failure,
  });
  writeSummary(summary, options.outDir);
  emit({ type: 'ended', summary });
  return summary;
}

/** Starts the debugger on the target; a launched program's pid comes from the banner. */
async function startSession(
  engine: DialectName,
  options: WatchOptions,
  target: SessionTarget,
  proc: WatchedProcess,
  log: ExceptionLog,
): Promise<DebuggerSession> {
  let session: DebuggerSession;
  try {
    session = await DebuggerSession.start({
      dialect: engine,
      target,
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      // No signal: an abort ends the watch, whose close() detaches the target itself.
      ...debuggerLaunchOptions(options),
    });
  } catch (error) {
    log.close();
    throw translateStartError(error, proc.pid);
  }
  if (proc.pid === undefined) {
    const launched = session.dialect.launchedPid(session.banner);
    if (launched !== undefined) proc.pid = launched;
  }
  return session;
}

/** The exception filters of the selection, in the dialect's commands. */
async function armExceptionBreaks(
  session: DebuggerSession,
  selection: ExceptionSelection,
  timeoutMs: number,
): Promise<void> {
  const commands = session.dialect.exceptionBreakCommands({
    ...selection,
    // mingw g++ throws are 0x20474343; `sxe eh` alone only covers MSVC's e06d7363.
    codes: selection.cpp
      ? [...selection.codes, ...CPP_CODES.filter((c) => c !== '0xe06d7363')]
      : selection.codes,
  });
  for (const command of commands) await session.execute(command, { timeoutMs });
}

/** Why and when the watch ends: --duration, the caller's abort, or a reason found on the way. */
class WatchEnding {
  private readonly controller = new AbortController();
  reason: WatchEndReason | null = null;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onUserAbort = () => this.end('aborted');

  constructor(private readonly options: WatchOptions) {
    this.timer =
      options.durationMs === undefined
        ? undefined
        : setTimeout(() => this.end('duration'), options.durationMs);
    if (options.signal?.aborted === true) this.end('aborted');
    options.signal?.addEventListener('abort', this.onUserAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  end(reason: WatchEndReason): void {
    this.reason ??= reason;
    this.controller.abort(reason);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.options.signal?.removeEventListener('abort', this.onUserAbort);
  }
}

/** Resume, wait for the next stop, handle it; until the watch ends. True: the target exited. */
async function followStops(
  session: DebuggerSession,
  handler: ExceptionHandler,
  ending: WatchEnding,
  hooks: {
    exitAfterMax: boolean;
    sos: SosLoader | null;
    writeLine(line: WatchExceptionLine): void;
    emit(event: WatchEvent): void;
  },
): Promise<boolean> {
  let resumedAt = performance.now();
  if (!ending.signal.aborted) await session.go();
  while (!ending.signal.aborted) {
    let stop;
    try {
      stop = await session.waitForStop({ signal: ending.signal });
    } catch (error) {
      if (ending.signal.aborted) break;
      throw error;
    }
    for (const line of handler.passedEvents(stop)) hooks.writeLine(line);
    if (stop.kind === 'exit' || stop.processExited === true) {
      ending.end('target-exited');
      return true;
    }
    if (stop.kind === 'exception') {
      const line = await handler.handle(stop);
      line.eventDeliveryMs = round(stop.atMs - resumedAt);
      const quotaEnd = hooks.exitAfterMax && handler.quotaReached;
      resumedAt = performance.now();
      line.suspendedMs = round(resumedAt - stop.atMs);
      if (quotaEnd || ending.signal.aborted) {
        await handler.bucket(line);
        hooks.writeLine(line);
        if (quotaEnd) ending.end('max-dumps');
        break;
      }
      await session.go();
      // The dump is read for its bucket while the target runs again.
      await handler.bucket(line);
      hooks.writeLine(line);
      continue;
    }
    if (hooks.sos !== null && (await hooks.sos.onModuleLoad(stop.text))) {
      hooks.emit({
        type: 'note',
        message: `SOS loaded by ${hooks.sos.runtime ?? '?'} when the runtime loaded`,
      });
    }
    if (ending.signal.aborted) break;
    resumedAt = performance.now();
    await session.go();
  }
  return false;
}

/** Whether the watched process still runs after the detach (false when that cannot be told). */
/**
 * A program we launched and then detached from runs its own course: gone by the time we look is
 * its own end (`null`: exited by itself), not a target the harness lost. An attached process that
 * is gone stays `false`: we came to it running and must say it no longer is.
 */
function launchedAndGone(target: WatchOptions['target'], alive: boolean | null): boolean | null {
  return target.kind === 'launch' && alive === false ? null : alive;
}

async function stillRunning(proc: WatchedProcess, lookup: LookupOptions): Promise<boolean | null> {
  if (proc.pid === undefined) return null;
  try {
    const all = await listProcesses(lookup);
    return all.some((p) => p.pid === proc.pid);
  } catch {
    return false;
  }
}
