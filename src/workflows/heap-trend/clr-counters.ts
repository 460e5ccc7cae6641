// The sizes tier of a live .NET run: the runtime's System.Runtime counters, streamed by the one
// client of its diagnostics channel (engine/dialects/dotnet-diag: cdbh-diag `counters`), folded
// into the current reading (clr-counter-state.ts). The target is never stopped for them: the
// runtime publishes them from its own timer (EventCounters over EventPipe). A sample takes the
// newest reading at once; only the first sample waits, bounded, for the first batch.
import { openCounterStream, type DiagSession } from '../../engine/dialects/dotnet-diag/index.js';
import type { DiagCounter } from '../../engine/dialects/dotnet-diag/index.js';
import { waitWithDeadline } from '../../engine/deadline.js';
import { AbortedError, CommandFailedError, TimeoutError } from '../../errors.js';
import type { ClrCounters } from '../../report/heap-trend/types.js';
import { ClrCounterState } from './clr-counter-state.js';
import type { ClrCountersFeed } from './clr-tiers-sampler.js';

export interface ClrCountersOptions {
  pid: number;
  /** The run's interval: the counters come every second, or faster for a shorter interval. */
  intervalMs: number;
  env?: NodeJS.ProcessEnv;
  /** The channel client (cdbh-diag), when not found by its own rules. */
  helperPath?: string;
  signal?: AbortSignal;
  /** How long the first reading may take (default: 3 counter intervals, at least 10 s). */
  firstReadingTimeoutMs?: number;
}

/** Starts the counters session; throws when the channel cannot be opened (not .NET, no helper). */
export async function startClrCounters(options: ClrCountersOptions): Promise<ClrCountersFeed> {
  const intervalSec = Math.max(0.25, Math.min(1, options.intervalMs / 1000));
  const state = new ClrCounterState();
  let wakeReady: (() => void) | undefined;
  /** Readers waiting for a reading published at or after a time. */
  const waiters = new Set<{ wallMs: number; wake: () => void }>();
  const firstBatch = new Promise<void>((resolve) => (wakeReady = resolve));
  const session: DiagSession<DiagCounter> = await openCounterStream({
    pid: options.pid,
    intervalSec,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.helperPath === undefined ? {} : { helperPath: options.helperPath }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onData: (line) => {
      state.add(line);
      if (!state.ready) return;
      wakeReady?.();
      for (const w of waiters) if (line.t >= w.wallMs) w.wake();
    },
  });
  let ended: string | undefined;
  const endedPromise = session.ended.then((end) => {
    ended =
      end === null ? 'the counters client exited' : `the counters session ended (${end.reason})`;
  });
  const firstTimeout = options.firstReadingTimeoutMs ?? Math.max(10_000, intervalSec * 3000);
  return {
    async latest(signal?: AbortSignal): Promise<ClrCounters | undefined> {
      if (ended !== undefined) throw new CommandFailedError(ended);
      const now = state.reading();
      if (now !== undefined) return now;
      await waitWithDeadline(Promise.race([firstBatch, endedPromise]), {
        timeoutMs: firstTimeout,
        signal,
        onTimeout: () =>
          new TimeoutError(
            `no counters from pid ${options.pid} within ${firstTimeout} ms`,
            firstTimeout,
          ),
        onAbort: () => new AbortedError('interrupted while waiting for the first counters'),
      });
      if (ended !== undefined && !state.ready) throw new CommandFailedError(ended);
      return state.reading();
    },
    async since(wallMs: number, timeoutMs: number, signal?: AbortSignal) {
      const now = state.reading();
      if (now?.time !== undefined && Date.parse(now.time) >= wallMs) return now;
      let waiter: { wallMs: number; wake: () => void } | undefined;
      const arrived = new Promise<void>((wake) => {
        waiter = { wallMs, wake };
        waiters.add(waiter);
      });
      try {
        await waitWithDeadline(Promise.race([arrived, endedPromise]), {
          timeoutMs,
          signal,
          onTimeout: () => new TimeoutError(`no counters after ${timeoutMs} ms`, timeoutMs),
          onAbort: () => new AbortedError('interrupted while waiting for counters'),
        });
      } finally {
        if (waiter !== undefined) waiters.delete(waiter);
      }
      return state.reading();
    },
    async close(): Promise<void> {
      await session.close();
    },
  };
}
