// Waiting between polls in a dump series: a sleep that an abort ends early, the abort check, and
// whether the target still runs (a listing that fails counts as gone).
import { AbortedError } from '../../errors.js';
import { listProcesses, type LookupOptions } from '../process-lookup.js';

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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

export function checkAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted === true) throw new AbortedError(`interrupted while ${what}`);
}

export async function isAlive(pid: number, lookup: LookupOptions): Promise<boolean> {
  return listProcesses(lookup).then(
    (all) => all.some((p) => p.pid === pid),
    () => false,
  );
}
