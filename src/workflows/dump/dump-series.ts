// ProcDump's shape of `dump`: wait for the process to start (-w), wait until its commit crosses a
// threshold (-m above, -ml below), then write N dumps spaced in time (-n COUNT -s SECONDS).
// Each dump is one dumpProcess() (attach, write, detach, read back); between them the target runs
// untouched. Commit is read the way the dump's size estimate reads it, from outside the target
// where the engine allows: winedbg `info maps <pid>` (never attaches), cdb a short noninvasive
// attach running `!address -summary`. ProcDump's documentation of -m/-ml/-n/-s/-w:
// https://learn.microsoft.com/sysinternals/downloads/procdump
import { DebuggerSession } from '../../engine/debugger-session.js';
import { AbortedError, TargetError } from '../../errors.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import {
  findProcesses,
  listProcesses,
  lookupOptionsFor,
  resolveProcess,
  type LookupOptions,
  type ProcessInfo,
} from '../process-lookup.js';
import {
  cdbEstimate,
  dumpProcess,
  winedbgEstimate,
  type DumpEvent,
  type DumpOptions,
  type DumpResult,
  type Estimate,
} from './dump.js';

export interface CommitTrigger {
  /** Dump when the commit is at or above (`above`, ProcDump -m) or below (`below`, -ml) this. */
  direction: 'above' | 'below';
  thresholdBytes: number;
}

export interface DumpSeriesOptions extends Omit<DumpOptions, 'target' | 'onEvent'> {
  target: { pid: number } | { name: string } | { waitFor: string };
  /** How many dumps (ProcDump -n); default 1. */
  count?: number;
  /** Time between dumps (ProcDump -s); default 10 s as ProcDump's. */
  intervalMs?: number;
  trigger?: CommitTrigger;
  /** How often the commit is read while waiting for the trigger; default 1 s. */
  pollMs?: number;
  /** How often the process list is read while waiting for -w; default 500 ms. */
  waitPollMs?: number;
  onEvent?: (event: DumpSeriesEvent) => void;
}

export type DumpSeriesEvent =
  | DumpEvent
  | { type: 'waiting'; name: string }
  | {
      type: 'commit';
      pid: number;
      bytes: number | null;
      thresholdBytes: number;
      direction: 'above' | 'below';
      fired: boolean;
      note?: string;
    }
  | { type: 'dumped'; index: number; count: number; result: DumpResult }
  | { type: 'pause'; ms: number; next: number };

export const DEFAULT_SERIES_INTERVAL_MS = 10_000;
const DEFAULT_POLL_MS = 1000;
const DEFAULT_WAIT_POLL_MS = 500;

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

function checkAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted === true) throw new AbortedError(`interrupted while ${what}`);
}

/** Polls the process list until a process of `name` runs; several at once is `ambiguous`. */
export async function waitForProcessStart(
  name: string,
  lookup: LookupOptions,
  pollMs: number,
  signal?: AbortSignal,
): Promise<ProcessInfo> {
  for (;;) {
    checkAborted(signal, `waiting for ${name} to start`);
    const found = await findProcesses(name, lookup);
    if (found.length > 0) return resolveProcess({ name }, lookup);
    await sleep(pollMs, signal);
  }
}

/** The target's commit in bytes now (null when the engine could not say, with the reason). */
export async function readCommit(
  pid: number,
  options: Pick<
    DumpOptions,
    'engine' | 'debuggerPath' | 'debuggerCommandPrefix' | 'symbolPath' | 'env' | 'cwd' | 'signal'
  >,
): Promise<Estimate> {
  if (options.engine === 'winedbg') return winedbgEstimate(pid, options);
  const session = await DebuggerSession.start({
    dialect: 'cdb',
    target: { kind: 'attach', pid, noninvasive: true },
    startTimeoutMs: 60_000,
    ...debuggerLaunchOptions(options),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    return await cdbEstimate(session);
  } finally {
    await session.close();
  }
}

export function triggerFired(trigger: CommitTrigger, bytes: number): boolean {
  return trigger.direction === 'above'
    ? bytes >= trigger.thresholdBytes
    : bytes < trigger.thresholdBytes;
}

/** Reads the commit every pollMs until the trigger fires; TargetError when the target goes. */
async function waitForTrigger(
  pid: number,
  trigger: CommitTrigger,
  options: DumpSeriesOptions,
  lookup: LookupOptions,
  emit: (event: DumpSeriesEvent) => void,
): Promise<void> {
  for (;;) {
    checkAborted(options.signal, 'waiting for the commit threshold');
    const reading = await readCommit(pid, options);
    const fired = reading.bytes !== null && triggerFired(trigger, reading.bytes);
    emit({
      type: 'commit',
      pid,
      bytes: reading.bytes,
      thresholdBytes: trigger.thresholdBytes,
      direction: trigger.direction,
      fired,
      ...(reading.note === undefined ? {} : { note: reading.note }),
    });
    if (fired) return;
    if (reading.bytes === null) {
      // No reading: either the target is gone (say so) or the engine cannot read it (keep trying
      // would wait forever on a broken probe: stop with the reason).
      const alive = await listProcesses(lookup).then(
        (all) => all.some((p) => p.pid === pid),
        () => false,
      );
      if (!alive) throw new TargetError('not-found', `the target (pid ${pid}) has exited`);
      throw new TargetError(
        'unreadable',
        `cannot read the commit of pid ${pid}: ${reading.note ?? 'no reading'}`,
      );
    }
    await sleep(options.pollMs ?? DEFAULT_POLL_MS, options.signal);
  }
}

/** Runs the series; returns every dump written (stops at the first failure, which it throws). */
export async function dumpSeries(options: DumpSeriesOptions): Promise<DumpResult[]> {
  const emit = (event: DumpSeriesEvent) => options.onEvent?.(event);
  const count = options.count ?? 1;
  const lookup: LookupOptions = {
    ...lookupOptionsFor(options),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  let target: { pid: number } | { name: string };
  if ('waitFor' in options.target) {
    emit({ type: 'waiting', name: options.target.waitFor });
    const found = await waitForProcessStart(
      options.target.waitFor,
      lookup,
      options.waitPollMs ?? DEFAULT_WAIT_POLL_MS,
      options.signal,
    );
    target = { pid: found.pid };
  } else {
    target = options.target;
  }
  // A name is resolved once: every dump of the series is of the same process.
  const pid =
    'pid' in target ? target.pid : (await resolveProcess({ name: target.name }, lookup)).pid;

  const results: DumpResult[] = [];
  for (let index = 1; index <= count; index++) {
    if (options.trigger !== undefined) {
      await waitForTrigger(pid, options.trigger, options, lookup, emit);
    }
    checkAborted(options.signal, 'writing the dump series');
    const result = await dumpProcess({
      ...options,
      target: { pid },
      numbered: count > 1 || options.numbered === true,
      onEvent: emit,
    });
    results.push(result);
    emit({ type: 'dumped', index, count, result });
    if (index < count) {
      const ms = options.intervalMs ?? DEFAULT_SERIES_INTERVAL_MS;
      emit({ type: 'pause', ms, next: index + 1 });
      await sleep(ms, options.signal);
    }
  }
  return results;
}
