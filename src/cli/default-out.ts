// Where a command writes when no --out is given, the same for every command (docs/cli.md,
// "Default output folders and file names"): ./cdb-harness-out/<command>-<yyMMdd_HHmmss>, local
// time, the date and time written as ProcDump writes them in dump names
// (PROCESSNAME_YYMMDD_HHMMSS, https://learn.microsoft.com/en-us/sysinternals/downloads/procdump).
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
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

/**
 * An existing `--out` folder the command could not write into, said before anything runs
 * (usage error, exit 2) instead of a raw `EACCES … open 'OUT/records.ndjson'` after the
 * progress header. A folder that does not exist yet is made by the command, which reports a
 * parent it cannot write into the same way.
 */
export function checkOutWritable(dir: string, flag = '--out'): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    return;
  }
  if (!isDir) return; // the command says "a file is in the way"
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `${flag} ${dir}: this folder cannot be written into (${typeof code === 'string' ? code : 'no access'}: read-only or not yours); pick another ${flag}`,
      { cause: error },
    );
  }
}
