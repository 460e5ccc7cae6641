// ProcDump's shape of `dump`: wait for the process to start (-w), wait for a trigger (commit -m/-ml,
// one size or a list of steps, or --commit-step; CPU -c/-cl held for -s seconds; the exit, -t),
// then write N dumps (-n COUNT; without a trigger spaced by -s SECONDS). Every firing and every
// dump it leads to is a line of triggers.ndjson beside the dumps (trigger-log.ts).
// Each dump is one dumpProcess() (attach, write, detach, read back); between them the target runs
// untouched. Commit is read the way the dump's size estimate reads it, from outside the target
// where the engine allows: winedbg `info maps <pid>` (never attaches), cdb a short noninvasive
// attach running `!address -summary`. ProcDump's documentation of -m/-ml/-n/-s/-w:
// https://learn.microsoft.com/sysinternals/downloads/procdump
import { getDialect } from '../../engine/dialects/index.js';
import { errorMessage, TargetError, UsageError } from '../../errors.js';
import {
  listProcesses,
  lookupOptionsFor,
  resolveProcess,
  sameImageName,
  type LookupOptions,
  type ProcessInfo,
} from '../process-lookup.js';
import { ensureOutDir } from './dump-file.js';
import { dumpProcess, type DumpEvent, type DumpOptions, type DumpResult } from './dump.js';
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
import {
  commitThreshold,
  DEFAULT_POLL_MS,
  readCommit,
  waitForCommit,
  type CommitTrigger,
} from './commit-trigger.js';
import { checkAborted, sleep } from './series-wait.js';

export { readCommit, triggerFired, type CommitTrigger } from './commit-trigger.js';

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
const DEFAULT_WAIT_POLL_MS = 500;

/** Polls the process list until a process of `name` runs; several at once is `ambiguous`. */
export async function waitForProcessStart(
  name: string,
  lookup: LookupOptions,
  pollMs: number,
  signal?: AbortSignal,
): Promise<ProcessInfo> {
  for (;;) {
    checkAborted(signal, `waiting for ${name} to start`);
    // One listing per poll: the one that finds the name also settles which process it is
    // (a winedbg listing starts a debugger, so a second one would delay the first dump).
    const all = await listProcesses(lookup);
    if (all.some((p) => sameImageName(name, p.name))) {
      return resolveProcess({ name }, { ...lookup, list: () => Promise.resolve(all) });
    }
    await sleep(pollMs, signal);
  }
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
  let proc: ProcessInfo;
  if ('waitFor' in options.target) {
    emit({ type: 'waiting', name: options.target.waitFor });
    // The process the wait found is the target: no second listing to look it up again.
    proc = await waitForProcessStart(
      options.target.waitFor,
      lookup,
      options.waitPollMs ?? DEFAULT_WAIT_POLL_MS,
      options.signal,
    );
  } else {
    // A name is resolved once: every dump of the series is of the same process.
    proc = await resolveProcess(options.target, lookup);
  }
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
