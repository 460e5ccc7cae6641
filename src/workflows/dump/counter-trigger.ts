// ProcDump's -p / -pl: dump when a performance counter is at or above (-p) or below (-pl) a
// threshold for -s consecutive seconds (https://learn.microsoft.com/sysinternals/downloads/procdump).
// The counter is read from outside (the dialect's performanceCounter: typeperf on Windows), so
// watching never suspends the target.
import type { CounterSource } from '../../engine/dialects/common/typeperf.js';
import { holdUntil } from './hold-loop.js';
import type { Firing } from './trigger-log.js';

export interface CounterTrigger {
  path: string;
  direction: 'above' | 'below';
  threshold: number;
  /** How long the condition must hold (ProcDump -s), in ms. */
  holdMs: number;
}

function counterMet(trigger: CounterTrigger, value: number): boolean {
  return trigger.direction === 'above' ? value >= trigger.threshold : value < trigger.threshold;
}

/** Reads the counter every pollMs until the condition has held for holdMs; the firing. */
export async function waitForCounter(
  source: CounterSource,
  trigger: CounterTrigger,
  options: {
    pollMs: number;
    signal?: AbortSignal;
    onReading?: (value: number, heldMs: number) => void;
  },
): Promise<Firing> {
  const { sample, heldMs } = await holdUntil(
    () => source.read(),
    { met: (s) => counterMet(trigger, s.value) },
    {
      holdMs: trigger.holdMs,
      pollMs: options.pollMs,
      waiting: 'waiting for the counter trigger',
      signal: options.signal,
      onSample: (s, { heldMs }) => options.onReading?.(s.value, heldMs),
    },
  );
  const flag = trigger.direction === 'above' ? '-p' : '-pl';
  const op = trigger.direction === 'above' ? '>=' : '<';
  return {
    trigger: trigger.direction === 'above' ? 'counter-above' : 'counter-below',
    value: sample.value,
    threshold: trigger.threshold,
    unit: 'counter',
    heldFor: Math.round(heldMs / 100) / 10,
    reason: `${trigger.path} ${sample.value} ${op} ${trigger.threshold} for ${(heldMs / 1000).toFixed(1)} s (${flag}, ${source.describe})`,
    atMs: sample.atMs,
  };
}
