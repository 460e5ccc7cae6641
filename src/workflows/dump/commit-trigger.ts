// ProcDump's commit triggers (-m/-ml, the -m list form, --commit-step): reading the target's commit
// from outside (winedbg `info maps`, cdb a short noninvasive `!address -summary` attach, or the
// commit probe when that debugger has no !address) and
// waiting until it crosses the threshold of the next dump.
// https://learn.microsoft.com/sysinternals/downloads/procdump
import { DebuggerSession } from '../../engine/debugger-session.js';
import { getDialect } from '../../engine/dialects/index.js';
import { DebuggerNotFoundError, TargetError } from '../../errors.js';
import { probeCommit } from '../../platform/index.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import type { LookupOptions } from '../process-lookup.js';
import { cdbEstimate, type DumpOptions, type Estimate } from './dump.js';
import type { DumpSeriesEvent, DumpSeriesOptions } from './dump-series.js';
import { checkAborted, isAlive, sleep } from './series-wait.js';
import type { Firing } from './trigger-log.js';

export const DEFAULT_POLL_MS = 1000;

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

/** What one run of commit readings learnt about the debugger (so later polls skip what fails). */
export interface CommitReadState {
  /** The debugger's line when it has no !address: later readings go straight to the probe. */
  addressMissing?: string;
}

/** The target's commit in bytes now (null when the engine could not say, with the reason). */
export async function readCommit(
  pid: number,
  options: Pick<
    DumpOptions,
    'engine' | 'debuggerPath' | 'debuggerCommandPrefix' | 'symbolPath' | 'env' | 'cwd' | 'signal'
  >,
  state: CommitReadState = {},
): Promise<Estimate> {
  const dialect = getDialect(options.engine);
  if (dialect.liveDump !== undefined) return dialect.liveDump.readCommit(pid);
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
  if (state.addressMissing === undefined) {
    const session = await DebuggerSession.start({
      dialect: options.engine,
      target: { kind: 'attach', pid, noninvasive: dialect.abilities.noninvasiveAttach },
      startTimeoutMs: 60_000,
      ...debuggerLaunchOptions(options),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    let estimate: Estimate;
    try {
      estimate = await cdbEstimate(session);
    } finally {
      await session.close();
    }
    if (estimate.bytes !== null || estimate.missing === undefined) return estimate;
    // Remembered for the next polls: no more attaches that cannot answer.
    state.addressMissing = estimate.missing;
  }
  // The debugger has no !address (the Debugger Engine without exts.dll): the same MEM_COMMIT
  // total read from outside, as winedbg's `info maps` does, without suspending the target.
  const probe = await probeCommit(pid, {
    env: options.env ?? process.env,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if ('bytes' in probe) {
    return {
      bytes: probe.bytes,
      note: `read from outside by commit-probe (VirtualQueryEx): ${dialect.name} has no !address ("${state.addressMissing}")`,
    };
  }
  if ('gone' in probe) return { bytes: null, note: `pid ${pid} has exited` };
  throw new DebuggerNotFoundError(
    `cannot read the commit of pid ${pid}: ${dialect.name} has no !address ("${state.addressMissing}") and ${probe.unavailable}. Use Debugging Tools for Windows (winget install Microsoft.WinDbg), or build the probe (scripts/build-native.sh)`,
  );
}

export function triggerFired(trigger: CommitTrigger, bytes: number): boolean {
  return trigger.direction === 'above'
    ? bytes >= trigger.thresholdBytes
    : bytes < trigger.thresholdBytes;
}

/** Reads the commit every pollMs until it crosses `threshold`; null when the target has gone. */
export async function waitForCommit(
  pid: number,
  trigger: CommitTrigger,
  thresholdBytes: number,
  options: DumpSeriesOptions,
  lookup: LookupOptions,
  emit: (event: DumpSeriesEvent) => void,
): Promise<Firing | null> {
  let since: number | null = null;
  const state: CommitReadState = {};
  for (;;) {
    checkAborted(options.signal, 'waiting for the commit threshold');
    const before = state.addressMissing;
    const reading = await readCommit(pid, options, state);
    const at = performance.now();
    // Said once, when the readings change source.
    if (before === undefined && state.addressMissing !== undefined && reading.note !== undefined) {
      emit({ type: 'note', message: reading.note });
    }
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

/** The commit threshold of dump number `index` (1-based) of a commit trigger. */
export function commitThreshold(
  trigger: CommitTrigger,
  index: number,
  startBytes: number | null,
): number {
  if (trigger.steps !== undefined) return trigger.steps[index - 1] ?? trigger.thresholdBytes;
  if (trigger.stepBytes !== undefined) {
    const sign = trigger.direction === 'above' ? 1 : -1;
    return (startBytes ?? 0) + sign * index * trigger.stepBytes;
  }
  return trigger.thresholdBytes;
}
