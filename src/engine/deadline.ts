// Waits on a promise with a deadline and an AbortSignal. The timer and the abort listener are
// always removed in finally, so a finished wait leaves nothing behind.

export interface WaitOptions {
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
  onTimeout: () => Error;
  onAbort: () => Error;
}

export async function waitWithDeadline<T>(promise: Promise<T>, options: WaitOptions): Promise<T> {
  const { timeoutMs, signal } = options;
  if (signal?.aborted === true) throw options.onAbort();
  let timer: NodeJS.Timeout | undefined;
  let removeAbort: (() => void) | undefined;
  const guards = new Promise<never>((_resolve, reject) => {
    if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => reject(options.onTimeout()), Math.max(0, timeoutMs));
    }
    if (signal) {
      const onAbort = () => reject(options.onAbort());
      signal.addEventListener('abort', onAbort, { once: true });
      removeAbort = () => signal.removeEventListener('abort', onAbort);
    }
  });
  try {
    return await Promise.race([promise, guards]);
  } finally {
    clearTimeout(timer);
    removeAbort?.();
  }
}

/** Resolves after `ms` or when the signal aborts (never rejects); the timer is cleared. */
export function settleAfter(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((done) => (timer = setTimeout(done, Math.max(0, ms)))),
  ]).finally(() => clearTimeout(timer));
}
