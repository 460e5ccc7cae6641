// The clock of a dump's walks: wall time minus the time spent waiting on symbol files and module
// images (a symbol server's download, a large .sym being indexed). The per-thread time budget is
// a safety net against a walk's own work running away; what the walk waits for elsewhere must
// not cut it, or a slow or dead symbol server gives the same dump a shorter stack and another
// bucket (issue 30 item 4). Waits may nest (an export-table name waits on the image); the clock
// pauses once for the outermost.
import { waits, type Maybe } from '../stackwalk/scan.js';

export class WalkClock {
  #waited = 0;
  #pending = 0;
  #since = 0;

  /** `value` as is; while it is a pending promise, the clock does not run. */
  pause<T>(value: Maybe<T>): Maybe<T> {
    if (!waits(value)) return value;
    if (this.#pending++ === 0) this.#since = performance.now();
    return value.finally(() => {
      if (--this.#pending === 0) this.#waited += performance.now() - this.#since;
    });
  }

  /** A budget of `ms` of the walk's own time from now: true once it is spent. */
  budget(ms: number): () => boolean {
    const started = performance.now();
    const waitedBefore = this.#waited;
    return () => {
      const waiting = this.#pending > 0 ? performance.now() - this.#since : 0;
      return performance.now() - started - (this.#waited - waitedBefore) - waiting > ms;
    };
  }
}
