// Which matching exceptions get a dump: --skip N (the first N matches are only logged, as
// SmartDump's -s), --once-per-bucket (one dump per signature), --max-dumps N (ProcDump -n).
// Checked in that order, so skipped matches neither fill a bucket nor count against the quota.
import type { WatchSkipReason } from './watch-records.js';

export interface DumpPolicyOptions {
  skip?: number;
  maxDumps?: number;
  oncePerBucket?: boolean;
}

export type DumpDecision = { dump: true } | { dump: false; reason: WatchSkipReason };

export class DumpPolicy {
  private matches = 0;
  private dumps = 0;
  private readonly seen = new Set<string>();

  constructor(private readonly options: DumpPolicyOptions) {}

  /** Called for each matching exception, in order. */
  decide(signature: string): DumpDecision {
    this.matches++;
    if (this.matches <= (this.options.skip ?? 0)) return { dump: false, reason: 'skip' };
    if (this.options.oncePerBucket === true && this.seen.has(signature)) {
      return { dump: false, reason: 'bucket-seen' };
    }
    if (this.options.maxDumps !== undefined && this.dumps >= this.options.maxDumps) {
      return { dump: false, reason: 'max-dumps' };
    }
    return { dump: true };
  }

  /** The dump for `signature` was written (a failed write neither fills the bucket nor the quota). */
  recordDump(signature: string): void {
    this.dumps++;
    this.seen.add(signature);
  }

  get dumpsWritten(): number {
    return this.dumps;
  }

  get quotaReached(): boolean {
    return this.options.maxDumps !== undefined && this.dumps >= this.options.maxDumps;
  }
}
