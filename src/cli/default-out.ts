// Where a command writes when no --out is given, the same for every command (docs/cli.md,
// "Default output folders and file names"): ./cdb-harness-out/<command>-<yyMMdd_HHmmss>, local
// time, the date and time written as ProcDump writes them in dump names
// (PROCESSNAME_YYMMDD_HHMMSS, https://learn.microsoft.com/en-us/sysinternals/downloads/procdump).
import { join } from 'node:path';
import { dateTimeParts } from '../workflows/dump/dump-name.js';

export const DEFAULT_OUT_ROOT = 'cdb-harness-out';

/** `yyMMdd_HHmmss`, local time: the one time stamp in default folder and file names. */
export function outStamp(now: Date): string {
  const { date, time } = dateTimeParts(now);
  return `${date}_${time}`;
}

/** `cdb-harness-out/<command>-<yyMMdd_HHmmss>` (relative: resolved against the current folder). */
export function defaultOutDir(command: string, now: Date = new Date()): string {
  return join(DEFAULT_OUT_ROOT, `${command}-${outStamp(now)}`);
}
