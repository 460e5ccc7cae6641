// OUT/exceptions.ndjson and the running totals behind OUT/summary.json. Each line is written
// synchronously as the stop is handled: if the harness dies a moment later, every exception seen
// so far is already on disk (the log is the product, not a by-product).
import { closeSync, openSync, writeSync } from 'node:fs';
import { failureCause, IoError } from '../../errors.js';
import type { WatchExceptionLine, WatchSkipReason } from './watch-records.js';
import { dict } from '../../common/dict.js';

export class ExceptionLog {
  private fd: number | null;
  readonly path: string;
  count = 0;
  dumps = 0;
  totalSuspendedMs = 0;
  readonly bySignature: Record<string, number> = dict();
  readonly byReason: Partial<Record<WatchSkipReason, number>> = {};
  readonly dumpPaths: string[] = [];
  private readonly suspensions: number[] = [];

  constructor(path: string) {
    this.path = path;
    try {
      // Append: a re-run into the same --out adds to the log instead of destroying it.
      this.fd = openSync(path, 'a', 0o600);
    } catch (error) {
      throw new IoError(`cannot open the exception log ${path}: ${failureCause(error)}`, {
        cause: error,
      });
    }
  }

  append(line: WatchExceptionLine): void {
    if (this.fd === null) throw new IoError(`the exception log ${this.path} is closed`);
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    this.count++;
    this.totalSuspendedMs += line.suspendedMs;
    this.suspensions.push(line.suspendedMs);
    this.bySignature[line.signature] = (this.bySignature[line.signature] ?? 0) + 1;
    if (line.reason !== undefined)
      this.byReason[line.reason] = (this.byReason[line.reason] ?? 0) + 1;
    if (line.action === 'dumped') {
      this.dumps++;
      if (line.dumpPath !== undefined) this.dumpPaths.push(line.dumpPath);
    }
  }

  medianSuspendedMs(): number | null {
    if (this.suspensions.length === 0) return null;
    const sorted = [...this.suspensions].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const value =
      sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
    return value ?? null;
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}
