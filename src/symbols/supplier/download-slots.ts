// How many symbol downloads run at once. Each download streams to a `.part` file of up to the
// size limit (`--symbol-max-size`), and a cabinet adds its expanded part beside it: with one
// download per dump in flight, 16 dumps each asking a server that never ends its body for a
// different PDB held 16 × the limit on disk at once (bench/symbols-hostile.ts). A few slots keep
// that at slots × the limit whatever the batch; the waits honour the run's AbortSignal.
import { AbortedError } from '../../errors.js';

/** Downloads at once per locator (a run): what symbol clients commonly run in parallel. */
export const DEFAULT_DOWNLOAD_SLOTS = 4;

export class DownloadSlots {
  readonly #size: number;
  #used = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size = DEFAULT_DOWNLOAD_SLOTS) {
    this.#size = Math.max(1, Math.floor(size));
  }

  /** Runs `task` once a slot is free; the slot is given back however it ends. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#take(signal);
    try {
      return await task();
    } finally {
      this.#give();
    }
  }

  async #take(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted === true) {
      throw new AbortedError('download aborted', { cause: signal.reason });
    }
    if (this.#used < this.#size) {
      this.#used++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiting.indexOf(wake);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(
          new AbortedError('download aborted while waiting its turn', { cause: signal?.reason }),
        );
      };
      // The slot is handed over by #give (the count stays the same).
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiting.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#used--;
    else next();
  }
}
