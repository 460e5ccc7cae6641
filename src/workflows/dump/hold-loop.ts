// The hold rule ProcDump's watching triggers share (-c/-cl, -p/-pl, -h): sample the target from
// outside every poll interval, and fire once a condition has held for a while without a break
// (https://learn.microsoft.com/sysinternals/downloads/procdump: "for -s consecutive seconds").
// The CPU, counter and hung-window triggers differ only in what they sample and what holds.
import { checkAborted, sleep } from './series-wait.js';

/** One sample; atMs is when it was taken, on the sampler's own clock (ms). */
export interface HoldSample {
  atMs: number;
}

/** Takes one sample; null when the source has gone (the process exited), which ends the wait. */
export type Sampler<S extends HoldSample> = (signal?: AbortSignal) => Promise<S | null>;

export interface HoldCondition<S extends HoldSample> {
  met(sample: S): boolean;
  /**
   * Since when a met condition has held, when the sample knows better than a run of met samples
   * (a window is silent from its own first unanswered send, whatever other windows did). Without
   * it the hold counts from the first sample of the current run that met the condition.
   */
  heldSince?(sample: S): number;
}

export interface HoldOptions<S extends HoldSample> {
  /** How long the condition must hold, in ms. */
  holdMs: number;
  pollMs: number;
  /** Wait one poll interval before the first sample too (a rate needs an interval behind it). */
  waitFirst?: boolean;
  signal?: AbortSignal | undefined;
  /** What the wait is, for the error an abort raises ("waiting for the CPU trigger"). */
  waiting: string;
  onSample?: (sample: S, held: { met: boolean; heldMs: number }) => void;
}

/** The sample that completed the hold, and how long the condition had held by then. */
export interface Held<S> {
  sample: S;
  heldMs: number;
}

/**
 * Samples every pollMs until the condition has held for holdMs; the sample that completed the
 * hold, or null when the sampler says the source has gone. One sample that does not meet the
 * condition restarts the count.
 */
export function holdUntil<S extends HoldSample>(
  sample: (signal?: AbortSignal) => Promise<S>,
  condition: HoldCondition<S>,
  options: HoldOptions<S>,
): Promise<Held<S>>;
export function holdUntil<S extends HoldSample>(
  sample: Sampler<S>,
  condition: HoldCondition<S>,
  options: HoldOptions<S>,
): Promise<Held<S> | null>;
export async function holdUntil<S extends HoldSample>(
  sample: Sampler<S>,
  condition: HoldCondition<S>,
  options: HoldOptions<S>,
): Promise<Held<S> | null> {
  let runSince: number | null = null;
  for (let first = true; ; first = false) {
    checkAborted(options.signal, options.waiting);
    if (!first || options.waitFirst === true) {
      await sleep(options.pollMs, options.signal);
      checkAborted(options.signal, options.waiting);
    }
    const current = await sample(options.signal);
    if (current === null) return null;
    const met = condition.met(current);
    if (met) runSince ??= current.atMs;
    else runSince = null;
    const since = met ? (condition.heldSince?.(current) ?? runSince) : null;
    const heldMs = since === null ? 0 : current.atMs - since;
    options.onSample?.(current, { met, heldMs });
    if (met && heldMs >= options.holdMs) return { sample: current, heldMs };
  }
}
