// ProcDump's -p / -pl: dump when a performance counter is at or above (-p) or below (-pl) a
// threshold for -s consecutive seconds (https://learn.microsoft.com/sysinternals/downloads/procdump).
// The counter is read from outside (the dialect's performanceCounter: typeperf on Windows), so
// watching never suspends the target.
import type { CounterSource } from '../../engine/dialects/common/typeperf.js';
import { AbortedError } from '../../errors.js';
import type { Firing } from './trigger-log.js';

export interface CounterTrigger {
  path: string;
  direction: 'above' | 'below';
  threshold: number;
  /** How long the condition must hold (ProcDump -s), in ms. */
  holdMs: number;
}

export function counterMet(trigger: CounterTrigger, value: number): boolean {
  return trigger.direction === 'above' ? value >= trigger.threshold : value < trigger.threshold;
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
  let heldSince: number | null = null;
  for (;;) {
    if (options.signal?.aborted === true) {
      throw new AbortedError('interrupted while waiting for the counter trigger');
    }
    const { value, atMs } = await source.read();
    const met = counterMet(trigger, value);
    if (met) heldSince ??= atMs;
    else heldSince = null;
    const heldMs = heldSince === null ? 0 : atMs - heldSince;
    options.onReading?.(value, heldMs);
    if (met && heldMs >= trigger.holdMs) {
      const flag = trigger.direction === 'above' ? '-p' : '-pl';
      const op = trigger.direction === 'above' ? '>=' : '<';
      return {
        trigger: trigger.direction === 'above' ? 'counter-above' : 'counter-below',
        value,
        threshold: trigger.threshold,
        unit: 'counter',
        heldFor: Math.round(heldMs / 100) / 10,
        reason: `${trigger.path} ${value} ${op} ${trigger.threshold} for ${(heldMs / 1000).toFixed(1)} s (${flag}, ${source.describe})`,
        atMs,
      };
    }
    await sleep(options.pollMs, options.signal);
  }
}
