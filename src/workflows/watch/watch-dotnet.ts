// `watch` of a .NET process on Linux, with no debugger: the runtime's own exception events
// (Microsoft-Windows-DotNETRuntime, exception keyword: ExceptionThrown_V1, every first-chance
// throw, with its stack) through the diagnostics IPC channel (engine/dialects/dotnet-diag), the
// same filters, signatures, dump policy and exceptions.ndjson lines as the debugger path, and a
// dump through the same channel when a filter matches.
//
// The target is NOT stopped at the throw: events arrive asynchronously (the runtime writes them to
// the session a few tens of milliseconds later), so a dump is taken shortly after the throw, not at
// it; each dumped line says how long after (`dumpStartAfterThrowMs`). The throwing thread has
// usually moved on by then (into its catch block, or past it). That is the price of watching with
// no debugger attached: the target runs at full speed and nothing can hold it.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import {
  openExceptionStream,
  type DiagException,
  type DiagSession,
} from '../../engine/dialects/dotnet-diag/index.js';
import { errorMessage } from '../../errors.js';
import { dateTimeParts, safeFileComponent } from '../dump/dump-name.js';
import { ensureOutDir, fileBytes, reserveDumpFile, setAsidePartial } from '../dump/dump-file.js';
import { processGone, resolveDotnetTarget, type DotnetWatchTarget } from './dotnet-target.js';
import { DumpPolicy } from './dump-policy.js';
import { round } from './exception-handler.js';
import { ExceptionLog } from './exception-log.js';
import { evaluateFilters, parseFilterSet, type FilterSet } from './filter.js';
import { exceptionSignature } from './signature.js';
import type { WatchEndReason, WatchExceptionLine, WatchSummary } from './watch-records.js';
import { buildSummary, writeSummary } from './watch-summary.js';
import type { WatchEvent, WatchOptions } from './watch.js';

/** The engine name of this path in events, summaries and `--engine`. */
export const DOTNET_DIAG_ENGINE = 'dotnet-diag';

/** The code a managed exception has on Windows (cdb's `sxe clr`), so one filter fits both. */
const CLR_CODE = '0xe0434352';
const DEFAULT_FRAMES = 10;
const CLOSE_TIMEOUT_MS = 15_000;

// The runtime's managed exception dispatcher tops every throw's stack in .NET 9+
// (`System.Private.CoreLib!System.Runtime.EH.DispatchEx`, seen in every recorded event here;
// without the module when only its precompiled entry point named it);
// the program threw below it. Dropped from the line's frames, as signature.ts drops it from
// SOS's `!clrstack`.
const DISPATCHER_FRAME_RE = /^(?:System\.Private\.CoreLib!)?System\.Runtime\.EH\./;

// ExceptionThrown_V1's ExceptionFlags (ClrEtwAll.man, ExceptionThrown_V1 template).
const FLAG_NAMES: [number, string][] = [
  [0x01, 'hasInnerException'],
  [0x02, 'nested'],
  [0x04, 'rethrown'],
  [0x08, 'corruptedState'],
];

function hexThread(id: number): string {
  return `0x${id.toString(16)}`;
}

/** The exceptions.ndjson line of one event, before filters and dumps. */
export function lineOfEvent(
  event: DiagException,
  index: number,
  frames: number,
  arrivedAtMs: number,
): WatchExceptionLine {
  let top = 0;
  while (top < event.frames.length && DISPATCHER_FRAME_RE.test(event.frames[top] ?? '')) top++;
  const kept = event.frames.slice(top, top + frames);
  const flags = FLAG_NAMES.filter(([bit]) => (event.flags & bit) !== 0).map(([, name]) => name);
  const line: WatchExceptionLine = {
    time: new Date(event.t).toISOString(),
    index,
    chance: 'first',
    code: CLR_CODE,
    description: 'CLR exception',
    threadId: hexThread(event.threadId),
    clrType: event.type,
    clrMessage: event.message,
    hresult: event.hresult,
    frames: kept,
    signature: exceptionSignature({ code: CLR_CODE, clrType: event.type, frames: kept }),
    matched: false,
    action: 'skipped',
    suspendedMs: 0,
    eventDeliveryMs: round(Math.max(0, arrivedAtMs - event.t)),
    eventSeq: event.seq,
  };
  if (flags.length > 0) line.exceptionFlags = flags;
  return line;
}

/** A Linux core file: ELF magic and e_type ET_CORE (4), the format createdump writes. */
async function isElfCore(path: string): Promise<boolean> {
  const handle = await open(path, 'r').catch(() => null);
  if (handle === null) return false;
  try {
    const head = Buffer.alloc(18);
    const { bytesRead } = await handle.read(head, 0, 18, 0);
    return bytesRead === 18 && head.readUInt32BE(0) === 0x7f454c46 && head.readUInt16LE(16) === 4;
  } finally {
    await handle.close();
  }
}

interface Context {
  options: WatchOptions;
  target: DotnetWatchTarget;
  filters: FilterSet;
  policy: DumpPolicy;
  log: ExceptionLog;
  emit(event: WatchEvent): void;
}

/** Filters, policy and (maybe) a dump for one event; the line is written by the caller. */
async function handleEvent(
  ctx: Context,
  session: DiagSession<DiagException>,
  line: WatchExceptionLine,
  dumpsAllowed: boolean,
): Promise<void> {
  const decision = evaluateFilters(ctx.filters, {
    code: line.code,
    description: line.description ?? null,
    clrType: line.clrType,
    clrMessage: line.clrMessage,
    frames: line.frames,
  });
  line.matched = decision.matched;
  line.matchedBy = decision.by;
  if (!decision.matched) {
    line.reason = 'filter';
    return;
  }
  if (!dumpsAllowed) {
    line.reason = 'watch-ended';
    return;
  }
  const verdict = ctx.policy.decide(line.signature);
  if (!verdict.dump) {
    line.reason = verdict.reason;
    return;
  }
  const kind = ctx.options.dumpKind ?? 'full';
  const { date, time } = dateTimeParts(new Date());
  const what = safeFileComponent(`e0434352-${(line.clrType ?? 'clr').split('.').pop() ?? 'clr'}`);
  const name = `${safeFileComponent(ctx.target.name)}_${ctx.target.pid}_${what}_${date}_${time}.core`;
  const path = await reserveDumpFile(ctx.options.outDir, name, { numbered: true });
  const started = performance.now();
  let error: string | undefined;
  try {
    const reply = await session.dump(path, kind, {
      timeoutMs: ctx.options.dumpTimeoutMs ?? 300_000,
    });
    line.dumpStartAfterThrowMs = round(Math.max(0, reply.startT - Date.parse(line.time)));
    if (!reply.ok) error = reply.error ?? 'the runtime refused the dump';
  } catch (e) {
    error = errorMessage(e).split('\n')[0] ?? 'dump failed';
  }
  line.dumpMs = round(performance.now() - started);
  const bytes = await fileBytes(path);
  if (error !== undefined || bytes === 0) {
    line.reason = 'dump-failed';
    line.dumpError = error ?? 'the runtime wrote an empty file';
    const kept = await setAsidePartial(path);
    if (kept !== null) line.dumpPath = kept;
    return;
  }
  ctx.policy.recordDump(line.signature);
  line.action = 'dumped';
  line.dumpPath = path;
  line.dumpBytes = bytes;
  if (ctx.options.verifyDumps !== false) {
    line.dumpVerified = await isElfCore(path);
    if (!line.dumpVerified) (line.notes ??= []).push('the dump is not an ELF core file');
  }
}

export async function watchDotnet(options: WatchOptions): Promise<WatchSummary> {
  const emit = (event: WatchEvent) => options.onEvent?.(event);
  const env = options.env ?? process.env;
  const target = await resolveDotnetTarget(options.target, {
    env,
    signal: options.signal,
    onWaiting: (name) => emit({ type: 'waiting', name }),
  });
  await ensureOutDir(options.outDir);
  const log = new ExceptionLog(join(options.outDir, 'exceptions.ndjson'));
  const startedAt = new Date();
  const startMs = performance.now();
  const ctx: Context = {
    options,
    target,
    filters: parseFilterSet(options.include ?? [], options.exclude ?? []),
    policy: new DumpPolicy({
      ...(options.skip === undefined ? {} : { skip: options.skip }),
      ...(options.maxDumps === undefined ? {} : { maxDumps: options.maxDumps }),
      ...(options.oncePerBucket === undefined ? {} : { oncePerBucket: options.oncePerBucket }),
    }),
    log,
    emit,
  };
  const queue: { event: DiagException; at: number }[] = [];
  let wake: (() => void) | null = null;
  let session: DiagSession<DiagException>;
  try {
    session = await openExceptionStream({
      pid: target.pid,
      env,
      ...(options.debuggerPath === undefined ? {} : { helperPath: options.debuggerPath }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.startTimeoutMs === undefined ? {} : { readyTimeoutMs: options.startTimeoutMs }),
      resume: target.child !== undefined,
      frames: Math.max(options.frames ?? DEFAULT_FRAMES, 0) + 4,
      onData: (event) => {
        queue.push({ event, at: Date.now() });
        wake?.();
      },
    });
  } catch (error) {
    log.close();
    target.child?.kill('SIGKILL');
    throw error;
  }
  emit({
    type: 'attached',
    engine: DOTNET_DIAG_ENGINE,
    pid: target.pid,
    name: target.name,
    startMs: round(performance.now() - startMs),
  });
  for (const line of session.notes) emit({ type: 'note', message: line });

  // ---- the watch: events in order, until a way out ------------------------------------------
  // An object, not a `let`: set from callbacks (timer, abort, the session's end).
  const state: { reason: WatchEndReason | null } = { reason: null };
  const end = (why: WatchEndReason) => {
    state.reason ??= why;
    wake?.();
  };
  const timer =
    options.durationMs === undefined
      ? undefined
      : setTimeout(() => end('duration'), options.durationMs);
  const onAbort = () => end('aborted');
  if (options.signal?.aborted === true) end('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  void session.ended.then(() => end('target-exited'));

  let index = 0;
  let failure: unknown = null;
  const frames = options.frames ?? DEFAULT_FRAMES;
  const drain = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const line = lineOfEvent(next.event, ++index, frames, next.at);
      // Once the watch ends (or -n is reached, where the policy says max-dumps) no dump is started.
      await handleEvent(ctx, session, line, state.reason === null || state.reason === 'max-dumps');
      log.append(line);
      emit({ type: 'exception', line });
      if (options.exitAfterMax === true && ctx.policy.quotaReached) end('max-dumps');
    }
  };
  try {
    while (state.reason === null) {
      await drain();
      if (state.reason !== null) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (queue.length > 0 || state.reason !== null) resolve();
      });
      wake = null;
    }
  } catch (error) {
    failure = error;
    end('error');
  }

  // ---- ending: stop the session (the target runs on), log what was still on its way ----------
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  const endReason: WatchEndReason = state.reason ?? 'error';
  emit({ type: 'ending', reason: endReason });
  const closed = await session.close({ timeoutMs: CLOSE_TIMEOUT_MS });
  try {
    await drain();
  } catch (error) {
    failure ??= error;
  }
  log.close();
  const exited = closed?.reason === 'target-exited' || processGone(target.pid);
  if (closed !== null && closed.lost > 0) {
    emit({
      type: 'note',
      message: `the runtime dropped ${closed.lost} event(s) (its session buffer was full)`,
    });
  }
  const summary = buildSummary({
    engine: DOTNET_DIAG_ENGINE,
    proc: { pid: target.pid, name: target.name },
    outDir: options.outDir,
    log,
    startedAt,
    startMs,
    detached: !exited,
    targetAlive: exited ? null : true,
    endReason: exited && endReason !== 'max-dumps' ? 'target-exited' : endReason,
    failure,
  });
  if (closed !== null) summary.eventsLost = closed.lost;
  writeSummary(summary, options.outDir);
  emit({ type: 'ended', summary });
  target.child?.unref();
  return summary;
}
