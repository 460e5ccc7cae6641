// ProcDump's shape of `dump`: wait for the process to start (-w), wait for a trigger (commit -m/-ml,
// one size or a list of steps, or --commit-step; CPU -c/-cl held for -s seconds; the exit, -t),
// then write N dumps (-n COUNT; without a trigger spaced by -s SECONDS). Every firing and every
// dump it leads to is a line of triggers.ndjson beside the dumps (trigger-log.ts).
// Each dump is one dumpProcess() (attach, write, detach, read back); between them the target runs
// untouched. Commit is read the way the dump's size estimate reads it, from outside the target
// where the engine allows: winedbg `info maps <pid>` (never attaches), cdb a short noninvasive
// attach running `!address -summary`. ProcDump's documentation of -m/-ml/-n/-s/-w:
// https://learn.microsoft.com/sysinternals/downloads/procdump
import { DebuggerSession } from '../../engine/debugger-session.js';
import { getDialect } from '../../engine/dialects/index.js';
import { AbortedError, errorMessage, TargetError, UsageError } from '../../errors.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import {
  findProcesses,
  listProcesses,
  lookupOptionsFor,
  resolveProcess,
  type LookupOptions,
  type ProcessInfo,
} from '../process-lookup.js';
import { ensureOutDir } from './dump-file.js';
import {
  cdbEstimate,
  dumpProcess,
  type DumpEvent,
  type DumpOptions,
  type DumpResult,
  type Estimate,
} from './dump.js';
import { waitForCpu, type CpuReading, type CpuTrigger } from './cpu-trigger.js';
import { waitForCounter, type CounterTrigger } from './counter-trigger.js';
import { dumpAtExit, exitRulesOf } from './exit-trigger.js';
import {
  waitForHungWindow,
  windowProbe,
  type HungReading,
  type HungTrigger,
  type WindowProbe,
} from './hung-trigger.js';
import { TriggerLog, type Firing, type TriggerEventLine } from './trigger-log.js';

export interface CommitTrigger {
  /** Dump when the commit is at or above (`above`, ProcDump -m) or below (`below`, -ml) this. */
  direction: 'above' | 'below';
  thresholdBytes: number;
  /**
   * ProcDump for Linux's list form (`-m 27,47,67,87`): one dump at each threshold crossed, in
   * order (ascending for above, descending for below), none twice; thresholdBytes is the first.
   */
  steps?: number[];
  /** `--commit-step SIZE`: one dump each time the commit has moved SIZE further from the start. */
  stepBytes?: number;
}

export interface DumpSeriesOptions extends Omit<DumpOptions, 'target' | 'onEvent'> {
  target: { pid: number } | { name: string } | { waitFor: string };
  /** How many dumps (ProcDump -n); default 1. */
  count?: number;
  /** Time between dumps (ProcDump -s); default 10 s as ProcDump's. */
  intervalMs?: number;
  trigger?: CommitTrigger;
  /** ProcDump -c/-cl (with -u and -s): CPU held above/below a percentage. */
  cpu?: CpuTrigger;
  /** ProcDump -t: one dump when the process is about to exit (cdb only). */
  onExit?: boolean;
  /** ProcDump -h: a top-level window silent for hungAfterMs (hung-trigger.ts). */
  hung?: HungTrigger;
  /** ProcDump -p/-pl: a performance counter held above/below a value for -s (Windows). */
  counter?: CounterTrigger;
  /** The window probe for -h (tests may give their own); default build/native/window-probe.exe. */
  windowProbe?: WindowProbe;
  /** How often the commit or the CPU is read while waiting for the trigger; default 1 s. */
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
  | { type: 'pause'; ms: number; next: number }
  | { type: 'cpu'; pid: number; reading: CpuReading; source: string }
  | { type: 'windows'; pid: number; reading: HungReading }
  | { type: 'counter'; pid: number; path: string; value: number; heldMs: number }
  | { type: 'armed'; pid: number; what: string }
  | { type: 'fired'; firing: Firing; line: TriggerEventLine }
  | { type: 'trigger-event'; line: TriggerEventLine }
  | { type: 'ended'; reason: 'count' | 'target-exited'; message: string };

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
  const dialect = getDialect(options.engine);
  if (dialect.abilities.sizeEstimate === 'info-maps' && dialect.estimateDumpBytes !== undefined) {
    return dialect.estimateDumpBytes(pid, {
      ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }
  if (dialect.abilities.sizeEstimate !== 'address-summary') {
    return { bytes: null, note: `${dialect.name} cannot read a process's commit` };
  }
  const session = await DebuggerSession.start({
    dialect: options.engine,
    target: { kind: 'attach', pid, noninvasive: dialect.abilities.noninvasiveAttach },
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

/** Reads the commit every pollMs until it crosses `threshold`; null when the target has gone. */
async function waitForCommit(
  pid: number,
  trigger: CommitTrigger,
  thresholdBytes: number,
  options: DumpSeriesOptions,
  lookup: LookupOptions,
  emit: (event: DumpSeriesEvent) => void,
): Promise<Firing | null> {
  let since: number | null = null;
  for (;;) {
    checkAborted(options.signal, 'waiting for the commit threshold');
    const reading = await readCommit(pid, options);
    const at = performance.now();
    const fired =
      reading.bytes !== null && triggerFired({ ...trigger, thresholdBytes }, reading.bytes);
    emit({
      type: 'commit',
      pid,
      bytes: reading.bytes,
      thresholdBytes,
      direction: trigger.direction,
      fired,
      ...(reading.note === undefined ? {} : { note: reading.note }),
    });
    if (fired && reading.bytes !== null) {
      const op = trigger.direction === 'above' ? '>=' : '<';
      const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
      return {
        trigger: trigger.direction === 'above' ? 'commit-above' : 'commit-below',
        value: reading.bytes,
        threshold: thresholdBytes,
        unit: 'bytes',
        heldFor: since === null ? 0 : Math.round((at - since) / 100) / 10,
        reason: `commit ${mb(reading.bytes)} ${op} ${mb(thresholdBytes)} (${trigger.direction === 'above' ? '-m' : '-ml'})`,
        atMs: at,
      };
    }
    since ??= at;
    if (reading.bytes === null) {
      // No reading: either the target is gone (say so) or the engine cannot read it (keep trying
      // would wait forever on a broken probe: stop with the reason).
      if (!(await isAlive(pid, lookup))) return null;
      throw new TargetError(
        'unreadable',
        `cannot read the commit of pid ${pid}: ${reading.note ?? 'no reading'}`,
      );
    }
    await sleep(options.pollMs ?? DEFAULT_POLL_MS, options.signal);
  }
}

async function isAlive(pid: number, lookup: LookupOptions): Promise<boolean> {
  return listProcesses(lookup).then(
    (all) => all.some((p) => p.pid === pid),
    () => false,
  );
}

/** The triggers asked for, by ProcDump name (for messages). */
function triggerNames(options: DumpSeriesOptions): string[] {
  const names: string[] = [];
  if (options.trigger !== undefined) {
    names.push(
      options.trigger.stepBytes !== undefined
        ? '--commit-step'
        : options.trigger.direction === 'above'
          ? '-m'
          : '-ml',
    );
  }
  if (options.cpu !== undefined) names.push(options.cpu.direction === 'above' ? '-c' : '-cl');
  if (options.onExit === true) names.push('-t');
  if (options.hung !== undefined) names.push('-h');
  if (options.counter !== undefined)
    names.push(options.counter.direction === 'above' ? '-p' : '-pl');
  return names;
}

/** The commit threshold of dump number `index` (1-based) of a commit trigger. */
function commitThreshold(trigger: CommitTrigger, index: number, startBytes: number | null): number {
  if (trigger.steps !== undefined) return trigger.steps[index - 1] ?? trigger.thresholdBytes;
  if (trigger.stepBytes !== undefined) {
    const sign = trigger.direction === 'above' ? 1 : -1;
    return (startBytes ?? 0) + sign * index * trigger.stepBytes;
  }
  return trigger.thresholdBytes;
}

/** Runs the series; returns every dump written (stops at the first failure, which it throws). */
export async function dumpSeries(options: DumpSeriesOptions): Promise<DumpResult[]> {
  const emit = (event: DumpSeriesEvent) => options.onEvent?.(event);
  const names = triggerNames(options);
  if (names.length > 1) {
    throw new UsageError(`one trigger at a time: ${names.join(' and ')} were given`);
  }
  if (options.onExit === true) exitRulesOf(options.engine); // refused before anything runs
  const trigger = options.trigger;
  const stepped = trigger?.steps !== undefined || trigger?.stepBytes !== undefined;
  const count =
    trigger?.steps !== undefined
      ? trigger.steps.length
      : trigger?.stepBytes !== undefined
        ? (options.count ?? Number.POSITIVE_INFINITY)
        : (options.count ?? 1);
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
  const proc = await resolveProcess(target, lookup);
  const pid = proc.pid;
  const log = names.length > 0 ? new TriggerLog(options.outDir) : null;
  if (log !== null) await ensureOutDir(options.outDir);
  const record = (line: TriggerEventLine) => emit({ type: 'trigger-event', line });

  if (options.onExit === true && log !== null) {
    const exit = await dumpAtExit(proc, options, () =>
      emit({ type: 'armed', pid, what: 'the exit (cdb sxe epr, bp ntdll!RtlExitUserProcess)' }),
    );
    emit({ type: 'fired', firing: exit.firing, line: log.fired(pid, exit.firing) });
    if (exit.result === null) {
      record(log.failed(pid, exit.firing, exit.error ?? 'no dump'));
      throw new TargetError('unreadable', exit.error ?? 'the dump at exit was not written');
    }
    record(
      log.dumped(pid, exit.firing, {
        path: exit.result.path,
        suspendedMs: exit.result.suspendedMs,
        latencyMs: 0,
      }),
    );
    emit({ type: 'dumped', index: 1, count: 1, result: exit.result });
    return [exit.result];
  }

  const cpuSource =
    options.cpu === undefined ? null : await cpuSourceFor(proc.pid, proc.name, options);
  const probe =
    options.hung === undefined
      ? null
      : (options.windowProbe ?? windowProbe(options.env === undefined ? {} : { env: options.env }));
  const counterSource =
    options.counter === undefined ? null : await counterSourceFor(options.counter.path, options);
  let startBytes: number | null = null;
  if (trigger?.stepBytes !== undefined) startBytes = (await readCommit(pid, options)).bytes;

  const results: DumpResult[] = [];
  for (let index = 1; index <= count; index++) {
    let firing: Firing | null = null;
    if (trigger !== undefined || cpuSource !== null || probe !== null || counterSource !== null) {
      const hung = options.hung;
      const counter = options.counter;
      firing =
        counterSource !== null && counter !== undefined
          ? await waitForCounter(counterSource, counter, {
              pollMs: options.pollMs ?? DEFAULT_POLL_MS,
              ...(options.signal === undefined ? {} : { signal: options.signal }),
              onReading: (value, heldMs) =>
                emit({ type: 'counter', pid, path: counter.path, value, heldMs }),
            })
          : probe !== null && hung !== undefined
            ? await waitForHungWindow(pid, probe, hung, {
                pollMs: options.pollMs ?? DEFAULT_POLL_MS,
                ...(options.signal === undefined ? {} : { signal: options.signal }),
                onReading: (reading) => emit({ type: 'windows', pid, reading }),
              })
            : cpuSource !== null && options.cpu !== undefined
              ? await waitForCpu(cpuSource, options.cpu, {
                  pollMs: options.pollMs ?? DEFAULT_POLL_MS,
                  ...(options.signal === undefined ? {} : { signal: options.signal }),
                  onReading: (reading) =>
                    emit({ type: 'cpu', pid, reading, source: cpuSource.describe }),
                })
              : trigger !== undefined
                ? await waitForCommit(
                    pid,
                    trigger,
                    commitThreshold(trigger, index, startBytes),
                    options,
                    lookup,
                    emit,
                  )
                : null;
      if (firing === null) {
        // The target has gone while waiting.
        if (results.length > 0 && trigger?.stepBytes !== undefined && options.count === undefined) {
          emit({
            type: 'ended',
            reason: 'target-exited',
            message: `the target (pid ${pid}) exited after ${results.length} dump(s)`,
          });
          return results;
        }
        throw new TargetError(
          'exited',
          results.length === 0
            ? `the target (pid ${pid}) exited before any trigger fired (${names.join(' ')}); no dump was written`
            : `the target (pid ${pid}) exited after ${results.length} of ${count} dumps (${names.join(' ')}); the dumps written are kept`,
        );
      }
      if (log !== null) emit({ type: 'fired', firing, line: log.fired(pid, firing) });
    }
    checkAborted(options.signal, 'writing the dump series');
    // Latency: from the firing to the debugger being started for the dump (the attach begins).
    let attachStartedAt = performance.now();
    let result: DumpResult;
    try {
      result = await dumpProcess({
        ...options,
        target: { pid },
        // Triggered dumps go straight to the attach: the process was found when watching began.
        ...(firing === null ? {} : { resolved: proc }),
        // …and skip an estimate that would run a second debugger before it (winedbg `info
        // maps`): under load it cost 0.2–1 s between the firing and the attach. An estimate
        // taken once attached (cdb `!address -summary`) does not delay the attach and stays.
        ...(firing !== null && getDialect(options.engine).abilities.sizeEstimate === 'info-maps'
          ? { estimate: false }
          : {}),
        numbered: count > 1 || options.numbered === true,
        onEvent: (event) => {
          if (event.type === 'attached') attachStartedAt = performance.now() - event.ms;
          emit(event);
        },
      });
    } catch (error) {
      if (firing !== null && log !== null) record(log.failed(pid, firing, errorMessage(error)));
      throw error;
    }
    if (firing !== null && log !== null) {
      record(
        log.dumped(pid, firing, {
          path: result.path,
          suspendedMs: result.suspendedMs,
          latencyMs: Math.round((attachStartedAt - firing.atMs) * 100) / 100,
        }),
      );
    }
    results.push(result);
    emit({ type: 'dumped', index, count, result });
    // Triggers that hold (-c/-cl) or step wait for their own condition again; otherwise the
    // dumps are spaced by -s.
    if (
      index < count &&
      options.cpu === undefined &&
      options.hung === undefined &&
      options.counter === undefined &&
      !stepped
    ) {
      const ms = options.intervalMs ?? DEFAULT_SERIES_INTERVAL_MS;
      emit({ type: 'pause', ms, next: index + 1 });
      await sleep(ms, options.signal);
    }
  }
  return results;
}

async function cpuSourceFor(pid: number, name: string, options: DumpSeriesOptions) {
  const dialect = getDialect(options.engine);
  if (dialect.processCpu === undefined) {
    throw new UsageError(`-c/-cl: ${dialect.name} cannot read a process's CPU time`);
  }
  return dialect.processCpu(pid, name, {
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}

async function counterSourceFor(path: string, options: DumpSeriesOptions) {
  const dialect = getDialect(options.engine);
  if (dialect.performanceCounter === undefined) {
    throw new UsageError(
      `-p/-pl: ${dialect.name} runs its targets under Wine, which has no typeperf.exe and only a few system counters in its pdh.dll; use --engine cdb on Windows`,
    );
  }
  return dialect.performanceCounter(path, {
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}
