// ProcDump's -c / -cl: dump when the process's CPU usage has stayed at or above (-c) or below
// (-cl) a percentage for -s consecutive seconds (default 10), as a share of all cores or, with
// -u, of one core (https://learn.microsoft.com/sysinternals/downloads/procdump). The usage is
// the CPU time the process used between two readings over the wall time between them; the
// readings come from outside (the dialect's processCpu: /proc under Wine, the process's own
// times on Windows), so watching never suspends the target.
import type { CpuSample, CpuSource } from '../../engine/dialects/types.js';
import { holdUntil, type Sampler } from './hold-loop.js';
import type { Firing } from './trigger-log.js';

export interface CpuTrigger {
  direction: 'above' | 'below';
  /** 1–100: percent of all cores, or of one core with perCore (ProcDump -u). */
  percent: number;
  perCore: boolean;
  /** How long the condition must hold (ProcDump -s), in ms. */
  holdMs: number;
}

export interface CpuReading {
  percent: number;
  /** How long the condition has held so far (0 when it does not hold), in ms. */
  heldMs: number;
  met: boolean;
}

/** CPU percent between two readings: of all `cores`, or of one core when perCore. */
export function cpuPercent(
  before: CpuSample,
  after: CpuSample,
  cores: number,
  perCore: boolean,
): number {
  const wallMs = after.atMs - before.atMs;
  if (!(wallMs > 0)) return 0;
  const share = Math.max(0, after.cpuMs - before.cpuMs) / wallMs;
  return (share * 100) / (perCore ? 1 : Math.max(1, cores));
}

export function cpuMet(trigger: CpuTrigger, percent: number): boolean {
  return trigger.direction === 'above' ? percent >= trigger.percent : percent < trigger.percent;
}

function describeCpuTrigger(trigger: CpuTrigger): string {
  const flag = trigger.direction === 'above' ? '-c' : '-cl';
  return `${flag} ${trigger.percent}${trigger.perCore ? ' -u' : ''} -s ${trigger.holdMs / 1000}`;
}

/**
 * Reads the CPU every pollMs until the condition has held for holdMs; the firing, or null when
 * the process is gone (its time can no longer be read).
 */
export async function waitForCpu(
  source: CpuSource,
  trigger: CpuTrigger,
  options: { pollMs: number; signal?: AbortSignal; onReading?: (reading: CpuReading) => void },
): Promise<Firing | null> {
  let before = await source.read();
  if (before === null) return null;
  // A usage is the CPU time used over one interval: each sample reads the time again and keeps
  // that reading as the start of the next interval.
  const sample: Sampler<CpuSample & { percent: number }> = async () => {
    const after = await source.read();
    if (after === null || before === null) return null;
    const percent = cpuPercent(before, after, source.cores, trigger.perCore);
    before = after;
    return { ...after, percent };
  };
  // The hold counts from the end of the first interval found above (below) the threshold, not
  // its start: that interval may have crossed only part way through, and the dump must not come
  // before the condition has held -s seconds ("not before"; at most one interval after).
  const held = await holdUntil(
    sample,
    { met: (s) => cpuMet(trigger, s.percent) },
    {
      holdMs: trigger.holdMs,
      pollMs: options.pollMs,
      waitFirst: true,
      waiting: 'waiting for the CPU trigger',
      signal: options.signal,
      onSample: (s, { met, heldMs }) => options.onReading?.({ percent: s.percent, heldMs, met }),
    },
  );
  if (held === null) return null;
  const { sample: last, heldMs } = held;
  const op = trigger.direction === 'above' ? '>=' : '<';
  const of = trigger.perCore ? 'of one core' : `of ${source.cores} cores`;
  return {
    trigger: trigger.direction === 'above' ? 'cpu-above' : 'cpu-below',
    value: Math.round(last.percent * 10) / 10,
    threshold: trigger.percent,
    unit: 'percent',
    heldFor: Math.round(heldMs / 100) / 10,
    reason: `CPU ${last.percent.toFixed(1)}% ${op} ${trigger.percent}% ${of} for ${(heldMs / 1000).toFixed(1)} s (${describeCpuTrigger(trigger)})`,
    atMs: last.atMs,
  };
}
