// `watch` (issue #6): attach to (or launch) a live process, stop on the exceptions the user
// selected, identify each one, write a dump when the filters say so, log every exception, and
// leave the target running (design.md "Rules that keep users safe").
//
// The loop, per stop: identify → decide → dump → resume with pass-to-the-program semantics
// (cdb `gn`, winedbg `pass`). Every way out — --duration, AbortSignal (Ctrl-C), the target
// exiting, --exit-after-max, an error in the harness — goes through endSafely(): pass any pending
// exception on, break in if running, detach (cdb `qd` under `-pd`, winedbg `detach` + `quit`).
import { basename, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { DebuggerSession } from '../../engine/debugger-session.js';
import type { SessionTarget } from '../../engine/dialects/dialect.js';
import type { StopEvent } from '../../engine/stop-event.js';
import { isHarnessError, UsageError } from '../../errors.js';
import { findDebuggerEvents } from '../../parsers/debugger-event.js';
import { parseDumpWritten } from '../../parsers/dump-written.js';
import { exceptionDumpName } from '../dump/dump-name.js';
import {
  ensureOutDir,
  fileBytes,
  reserveDumpFile,
  setAsidePartial,
  watchFileGrowth,
} from '../dump/dump-file.js';
import { translateStartError } from '../dump/target-errors.js';
import { verifyDump } from '../dump/verify-dump.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import {
  findProcesses,
  listProcesses,
  lookupOptionsFor,
  resolveProcess,
  type LookupOptions,
  type ProcessInfo,
} from '../process-lookup.js';
import { DumpPolicy } from './dump-policy.js';
import { CPP_CODES, isSelected, type ExceptionSelection } from './exception-codes.js';
import { ExceptionLog } from './exception-log.js';
import { evaluateFilters, parseFilterSet } from './filter.js';
import {
  fromStop,
  identifyStop,
  type IdentifiedException,
  type IdentifiedLineFields,
} from './identify.js';
import { exceptionSignature, SIGNATURE_ALGORITHM } from './signature.js';
import { SosLoader } from './sos-loader.js';
import type { WatchEndReason, WatchExceptionLine, WatchSummary } from './watch-records.js';

export type WatchTargetSpec =
  | { kind: 'pid'; pid: number }
  | { kind: 'name'; name: string }
  /** Wait until a process of this name appears (ProcDump -w), then attach. */
  | { kind: 'wait'; name: string; pollMs?: number; timeoutMs?: number }
  | { kind: 'launch'; program: string; args: readonly string[] };

export interface WatchOptions {
  engine: 'cdb' | 'winedbg';
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
  debuggerPath?: string;
  debuggerCommandPrefix?: { file: string; args: readonly string[] };
  symbolPath?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  startTimeoutMs?: number;
  commandTimeoutMs?: number;
  dumpTimeoutMs?: number;
  recordPath?: string;
  /** Process listing override (tests; the cdb emulator has no tasklist). */
  list?: LookupOptions['list'];
  signal?: AbortSignal;
  onEvent?: (event: WatchEvent) => void;
}

export type WatchEvent =
  | { type: 'waiting'; name: string }
  | { type: 'attached'; engine: 'cdb' | 'winedbg'; pid?: number; name?: string; startMs: number }
  | { type: 'exception'; line: WatchExceptionLine }
  | { type: 'dump-progress'; path: string; bytes: number; bytesPerSecond: number }
  | { type: 'note'; message: string }
  | { type: 'ending'; reason: WatchEndReason }
  | { type: 'ended'; summary: WatchSummary };

const DEFAULT_FRAMES = 10;
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
const DEFAULT_WAIT_POLL_MS = 500;

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

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Polls until exactly one process of `name` runs (several at once is an error, as for --name). */
async function waitForProcess(
  name: string,
  lookup: LookupOptions,
  pollMs: number,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<ProcessInfo> {
  const deadline =
    timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + timeoutMs;
  for (;;) {
    if (signal?.aborted === true) throw signal.reason;
    const found = await findProcesses(name, lookup);
    if (found.length > 0) return resolveProcess({ name }, lookup);
    if (performance.now() > deadline) {
      throw new UsageError(`no process named ${name} appeared within ${timeoutMs} ms`);
    }
    await sleep(pollMs, signal);
  }
}

// `WineDbg starting on pid 01a0` (lab §2): the launched process's pid, in hex.
const WINEDBG_STARTING_PID_RE = /WineDbg starting on pid ([0-9a-f]+)/i;
// cdb launching a program: the first event banner names the new process (hex pid.tid):
//   (128.12c): Break instruction exception - code 80000003 (first chance)
const CDB_FIRST_EVENT_PID_RE = /^\(([0-9a-f]+)\.[0-9a-f]+\): /im;

export async function watch(options: WatchOptions): Promise<WatchSummary> {
  checkOptions(options);
  const emit = (event: WatchEvent) => options.onEvent?.(event);
  const filters = parseFilterSet(options.include ?? [], options.exclude ?? []);
  const selection = selectionOf(options);
  const policy = new DumpPolicy({
    ...(options.skip === undefined ? {} : { skip: options.skip }),
    ...(options.maxDumps === undefined ? {} : { maxDumps: options.maxDumps }),
    ...(options.oncePerBucket === undefined ? {} : { oncePerBucket: options.oncePerBucket }),
  });
  const dumpKind = options.dumpKind ?? 'full';
  const frames = options.frames ?? DEFAULT_FRAMES;
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const lookup = lookupOptionsFor(options);

  // ---- the target --------------------------------------------------------------------------
  let proc: { pid?: number; name: string };
  let sessionTarget: SessionTarget;
  switch (options.target.kind) {
    case 'pid':
    case 'name': {
      const found = await resolveProcess(
        options.target.kind === 'pid' ? { pid: options.target.pid } : { name: options.target.name },
        { ...lookup, ...(options.signal === undefined ? {} : { signal: options.signal }) },
      );
      proc = found;
      sessionTarget = { kind: 'attach', pid: found.pid };
      break;
    }
    case 'wait': {
      emit({ type: 'waiting', name: options.target.name });
      const found = await waitForProcess(
        options.target.name,
        lookup,
        options.target.pollMs ?? DEFAULT_WAIT_POLL_MS,
        options.target.timeoutMs,
        options.signal,
      );
      proc = found;
      sessionTarget = { kind: 'attach', pid: found.pid };
      break;
    }
    case 'launch':
      proc = { name: basename(options.target.program.replace(/\\/g, '/')) };
      sessionTarget = {
        kind: 'launch',
        program: options.target.program,
        args: options.target.args,
      };
      break;
  }

  await ensureOutDir(options.outDir);
  const log = new ExceptionLog(join(options.outDir, 'exceptions.ndjson'));
  const startedAt = new Date();
  const startMs = performance.now();

  let session: DebuggerSession;
  try {
    session = await DebuggerSession.start({
      dialect: options.engine,
      target: sessionTarget,
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      commandTimeoutMs,
      // No signal: an abort reaches endSafely() below, which detaches the target itself.
      ...debuggerLaunchOptions(options),
    });
  } catch (error) {
    log.close();
    throw translateStartError(error, proc.pid);
  }
  if (proc.pid === undefined) {
    const m =
      WINEDBG_STARTING_PID_RE.exec(session.banner) ?? CDB_FIRST_EVENT_PID_RE.exec(session.banner);
    if (m?.[1] !== undefined) proc.pid = Number.parseInt(m[1], 16);
  }

  // ---- from here on, every exit goes through endSafely() -----------------------------------
  const stopper = new AbortController();
  let endReason: WatchEndReason | null = null;
  const end = (reason: WatchEndReason) => {
    endReason ??= reason;
    stopper.abort(reason);
  };
  const durationTimer =
    options.durationMs === undefined
      ? undefined
      : setTimeout(() => end('duration'), options.durationMs);
  const onUserAbort = () => end('aborted');
  if (options.signal?.aborted === true) end('aborted');
  options.signal?.addEventListener('abort', onUserAbort, { once: true });

  let failure: unknown = null;
  let exitedByItself = false;
  let index = 0;
  const sos =
    options.engine === 'cdb' && selection.clr ? new SosLoader(session, commandTimeoutMs) : null;
  // Whether the debugger has printed anything since our last go command beyond its echo: then a
  // stop is already being reported, and a Ctrl-C now races it (measured: winedbg printed
  // `Ctrl-C: stopping debuggee` in the middle of a stop and exited, killing the target).
  const activity = { sinceGo: '' };
  const stopWatching = session.onOutput((text) => {
    activity.sinceGo += text;
    if (activity.sinceGo.length > 4096) activity.sinceGo = activity.sinceGo.slice(-4096);
  });
  const go = async () => {
    activity.sinceGo = '';
    await session.go();
  };

  const writeLine = (line: WatchExceptionLine) => {
    log.append(line);
    emit({ type: 'exception', line });
  };

  /** First chances cdb printed without stopping (sxd) before this stop: logged, not held. */
  const logPassedEvents = (stop: StopEvent) => {
    if (options.engine !== 'cdb') return;
    const events = findDebuggerEvents(stop.text, 'cdb');
    const passed = stop.kind === 'exception' ? events.slice(0, -1) : events;
    for (const event of passed) {
      index++;
      writeLine({
        time: new Date().toISOString(),
        index,
        chance: event.chance,
        code: event.code,
        description: event.description,
        ...(event.clrExceptionType === undefined ? {} : { clrType: event.clrExceptionType }),
        ...(event.clrExceptionMessage === undefined
          ? {}
          : { clrMessage: event.clrExceptionMessage }),
        frames: [],
        signature: exceptionSignature({
          code: event.code,
          clrType: event.clrExceptionType,
          frames: [],
        }),
        matched: false,
        action: 'skipped',
        reason: 'not-selected',
        suspendedMs: 0,
      });
    }
  };

  /** Builds the line for one exception stop; the caller sets suspendedMs when it resumes. */
  const handleException = async (stop: StopEvent): Promise<WatchExceptionLine> => {
    const quick = fromStop(stop);
    const base = {
      time: new Date(Date.now() - (performance.now() - stop.atMs)).toISOString(),
      index,
    };
    if (!isSelected(selection, quick.code, quick.chance)) {
      // The hot path (winedbg breaks on every first chance): no questions, straight back.
      return {
        ...base,
        ...describe(quick),
        frames: [],
        signature: exceptionSignature({ code: quick.code, frames: [] }),
        matched: false,
        action: 'skipped',
        reason: 'not-selected',
        suspendedMs: 0,
      };
    }
    const identifyStart = performance.now();
    const id = await identifyStop(session, stop, {
      dialect: options.engine,
      frames,
      timeoutMs: commandTimeoutMs,
      sos,
    });
    const identifyMs = performance.now() - identifyStart;
    const signature = exceptionSignature({ code: id.code, clrType: id.clrType, frames: id.frames });
    const decision = evaluateFilters(filters, id);
    const line: WatchExceptionLine = {
      ...base,
      ...describe(id),
      frames: id.frames,
      signature,
      matched: decision.matched,
      matchedBy: decision.by,
      action: 'skipped',
      suspendedMs: 0,
      identifyMs: round(identifyMs),
    };
    if (id.notes.length > 0) line.notes = [...id.notes];
    if (!decision.matched) {
      line.reason = 'filter';
      return line;
    }
    const verdict = policy.decide(signature);
    if (!verdict.dump) {
      line.reason = verdict.reason;
      return line;
    }
    await dumpAt(id, signature, line);
    return line;
  };

  const dumpAt = async (id: IdentifiedException, signature: string, line: WatchExceptionLine) => {
    const dumpStart = performance.now();
    const name = exceptionDumpName({
      process: proc.name,
      pid: proc.pid ?? 0,
      code: id.code,
      clrType: id.clrType,
      time: new Date(),
    });
    // An unwritable --out is a harness error: it ends the watch (safely) rather than silently
    // logging dumps that never exist.
    const path = await reserveDumpFile(options.outDir, name, { numbered: true });
    const stopProgress = watchFileGrowth(path, (p) =>
      emit({ type: 'dump-progress', path, bytes: p.bytes, bytesPerSecond: p.bytesPerSecond }),
    );
    let output = '';
    let commandError: string | null = null;
    try {
      const result = await session.writeDump(path, dumpKind, {
        timeoutMs: options.dumpTimeoutMs ?? 300_000,
      });
      output = result.output;
    } catch (error) {
      commandError = (error as Error).message.split('\n')[0] ?? 'dump command failed';
      if (isHarnessError(error) && error.code === 'DEBUGGER_EXITED') throw error;
    } finally {
      stopProgress();
    }
    const written = parseDumpWritten(output, session.dialect.writeDumpCommand(path, dumpKind));
    const bytes = await fileBytes(path);
    // cdb says `Dump successfully written`; winedbg says nothing on success (dump-written.ts).
    if (commandError !== null || !written.success || bytes === 0) {
      const kept = await setAsidePartial(path);
      line.reason = 'dump-failed';
      line.dumpError =
        commandError ??
        written.error ??
        (bytes === 0 ? 'the debugger wrote an empty file' : 'dump failed');
      if (kept !== null) line.dumpPath = kept;
      line.dumpMs = round(performance.now() - dumpStart);
      return;
    }
    policy.recordDump(signature);
    line.action = 'dumped';
    line.dumpPath = path;
    line.dumpBytes = bytes;
    if (options.verifyDumps !== false) {
      const check = await verifyDump(
        path,
        {
          ...(proc.pid === undefined ? {} : { pid: proc.pid }),
          ...(id.code === null ? {} : { exceptionCode: id.code }),
          kind: dumpKind,
        },
        { engine: options.engine },
      );
      line.dumpVerified = check.verified;
      // What the debugger's text left out (winedbg prints no exception parameters): a CLR
      // exception's HRESULT from the record the dump holds (src/minidump/clr.ts).
      const parameters = check.exceptionParameters ?? [];
      if (line.parameters === undefined && parameters.length > 0) line.parameters = parameters;
      if (line.hresult === undefined && check.clr?.hresult !== undefined) {
        line.hresult = check.clr.hresult;
      }
      const notes = [...check.problems, ...check.notes];
      // Why the record has no HRESULT, when nothing else (SOS) named the exception.
      if (
        check.clr?.note !== undefined &&
        line.hresult === undefined &&
        line.clrType === undefined
      ) {
        notes.push(check.clr.note);
      }
      if (notes.length > 0) line.notes = [...(line.notes ?? []), ...notes];
    }
    line.dumpMs = round(performance.now() - dumpStart);
  };

  try {
    for (const command of session.dialect.exceptionBreakCommands({
      ...selection,
      // mingw g++ throws are 0x20474343 (lab §6); `sxe eh` alone only covers MSVC's e06d7363.
      codes: selection.cpp
        ? [...selection.codes, ...CPP_CODES.filter((c) => c !== '0xe06d7363')]
        : selection.codes,
    })) {
      await session.execute(command, { timeoutMs: commandTimeoutMs });
    }
    if (sos !== null) for (const note of await sos.prepare()) emit({ type: 'note', message: note });
    emit({
      type: 'attached',
      engine: options.engine,
      ...(proc.pid === undefined ? {} : { pid: proc.pid }),
      name: proc.name,
      startMs: round(session.startDurationMs),
    });
    let resumedAt = performance.now();
    if (!stopper.signal.aborted) await go();
    while (!stopper.signal.aborted) {
      let stop: StopEvent;
      try {
        stop = await session.waitForStop({ signal: stopper.signal });
      } catch (error) {
        if (stopper.signal.aborted) break;
        throw error;
      }
      logPassedEvents(stop);
      if (stop.kind === 'exit' || stop.processExited === true) {
        exitedByItself = true;
        end('target-exited');
        break;
      }
      if (stop.kind === 'exception') {
        index++;
        const line = await handleException(stop);
        line.eventDeliveryMs = round(stop.atMs - resumedAt);
        const quotaEnd = options.exitAfterMax === true && policy.quotaReached;
        resumedAt = performance.now();
        line.suspendedMs = round(resumedAt - stop.atMs);
        writeLine(line);
        if (quotaEnd) {
          end('max-dumps');
          break;
        }
        if (stopper.signal.aborted) break;
        await go();
        continue;
      }
      if (sos !== null && (await sos.onModuleLoad(stop.text))) {
        emit({
          type: 'note',
          message: `SOS loaded by ${sos.runtime ?? '?'} when the runtime loaded`,
        });
      }
      if (stopper.signal.aborted) break;
      resumedAt = performance.now();
      await go();
    }
  } catch (error) {
    failure = error;
    end('error');
  }

  // ---- ending: never harm the target ---------------------------------------------------------
  if (durationTimer !== undefined) clearTimeout(durationTimer);
  options.signal?.removeEventListener('abort', onUserAbort);
  const reason: WatchEndReason = endReason ?? 'error';
  emit({ type: 'ending', reason });
  const { detached, exitedDuringEnd } = await endSafely(session, exitedByItself, () =>
    stopReportStarted(activity.sinceGo),
  );
  stopWatching();
  log.close();
  if (exitedDuringEnd) exitedByItself = true;
  let targetAlive: boolean | null = null;
  if (!exitedByItself && proc.pid !== undefined) {
    try {
      const all = await listProcesses(lookup);
      targetAlive = all.some((p) => p.pid === proc.pid);
    } catch {
      targetAlive = false;
    }
  }
  const endedAt = new Date();
  const summary: WatchSummary = {
    schemaVersion: 1,
    engine: options.engine,
    process: { name: proc.name, ...(proc.pid === undefined ? {} : { pid: proc.pid }) },
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: round(performance.now() - startMs),
    exceptions: log.count,
    dumps: log.dumps,
    bySignature: log.bySignature,
    byReason: log.byReason,
    totalSuspendedMs: round(log.totalSuspendedMs),
    medianSuspendedMs: log.medianSuspendedMs(),
    detached,
    targetAlive,
    endReason: reason,
    outDir: options.outDir,
    logPath: log.path,
    dumpPaths: log.dumpPaths,
    signatureAlgorithm: SIGNATURE_ALGORITHM,
  };
  if (failure !== null) {
    summary.error = isHarnessError(failure)
      ? { code: failure.code, message: failure.shortMessage }
      : {
          code: 'INTERNAL',
          message: failure instanceof Error ? failure.message : JSON.stringify(failure),
        };
  }
  try {
    writeFileSync(join(options.outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`, {
      mode: 0o600,
    });
  } catch (error) {
    // The out dir may be the very thing that failed; the summary still goes back to the caller.
    summary.error ??= {
      code: 'IO',
      message: `summary.json not written: ${(error as Error).message}`,
    };
  }
  emit({ type: 'ended', summary });
  return summary;
}

/** True when the text after a go command holds more than the echo of that command. */
function stopReportStarted(sinceGo: string): boolean {
  const lines = sinceGo.split('\n').map((l) => l.trim());
  return lines.slice(1).some((l) => l.length > 0);
}

/**
 * Ends the session without harming the target. Running: when a stop is already being printed,
 * wait for its prompt instead of breaking in (a Ctrl-C racing a stop can end winedbg, and an
 * attached winedbg takes its target with it), then detach right there; otherwise the engine's
 * close() breaks in and detaches. Stopped at an exception the harness chose to end on (error,
 * --exit-after-max): detach at the stop. Both debuggers continue the pending event on detach.
 */
async function endSafely(
  session: DebuggerSession,
  exitedByItself: boolean,
  stopInFlight: () => boolean,
): Promise<{ detached: boolean; exitedDuringEnd: boolean }> {
  let exitedDuringEnd = false;
  if (!exitedByItself && session.state === 'running' && stopInFlight()) {
    try {
      const stop = await session.waitForStop({ timeoutMs: 10_000 });
      if (stop.kind === 'exit' || stop.processExited === true) exitedDuringEnd = true;
    } catch {
      // no prompt came: close() breaks in
    }
  }
  const closed = await session.close();
  if (/Process of pid=[0-9a-f]+ has terminated/.test(closed.output)) exitedDuringEnd = true;
  return { detached: closed.detached && !exitedByItself && !exitedDuringEnd, exitedDuringEnd };
}

function describe(
  id: IdentifiedException,
): IdentifiedLineFields & Pick<WatchExceptionLine, 'description'> {
  return {
    chance: id.chance,
    code: id.code,
    ...(id.description === null ? {} : { description: id.description }),
    ...(id.threadId === undefined ? {} : { threadId: id.threadId }),
    ...(id.address === undefined ? {} : { address: id.address }),
    ...(id.parameters === undefined ? {} : { parameters: id.parameters }),
    ...(id.clrType === undefined ? {} : { clrType: id.clrType }),
    ...(id.clrMessage === undefined ? {} : { clrMessage: id.clrMessage }),
    ...(id.hresult === undefined ? {} : { hresult: id.hresult }),
    ...(id.innerExceptions === undefined ? {} : { innerExceptions: id.innerExceptions }),
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
