// Exit codes scripts can rely on; documented in the README and in `--help`.
import { isHarnessError } from '../errors.js';

export const ExitCode = {
  /** Everything asked for was done. */
  Ok: 0,
  /** The job ran and failed (or found what it was told to fail on). */
  Failure: 1,
  /** Bad arguments; nothing was done. */
  Usage: 2,
  /** No usable debugger (cdb.exe / winedbg) was found, or an optional package a feature needs. */
  DebuggerNotFound: 3,
  /** The job finished but some items failed (bad dumps in a batch, unverified dumps). */
  Partial: 4,
  /** The target process is missing, protected or already being debugged. */
  Target: 5,
  /** heap-trend: the run finished and its verdict is a leak suspect (report.verdict). */
  LeakSuspected: 6,
  /** Interrupted by Ctrl-C / SIGTERM after cleaning up. */
  Interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export function exitCodeFor(error: unknown): ExitCodeValue {
  if (!isHarnessError(error)) return ExitCode.Failure;
  switch (error.code) {
    case 'USAGE':
    case 'UNSAFE_ARGUMENT':
      return ExitCode.Usage;
    case 'DEBUGGER_NOT_FOUND':
    case 'MISSING_PACKAGE':
      return ExitCode.DebuggerNotFound;
    case 'TARGET':
      return ExitCode.Target;
    case 'ABORTED':
      return ExitCode.Interrupted;
    default:
      return ExitCode.Failure;
  }
}

export const EXIT_CODES_HELP = `Exit codes:
  0    ok
  1    failure (the job failed, or a debugger/IO error)
  2    usage error (bad arguments; nothing was done)
  3    no debugger found (install Debugging Tools for Windows, or use --engine builtin/winedbg),
       or a missing optional package (the queue: npm install bullmq ioredis)
  4    partial (finished, but some inputs failed; see the summary)
  5    target problem (process gone, access denied, already being debugged)
  6    heap-trend: a leak is suspected (the verdict of report.json)
  130  interrupted (Ctrl-C); work done so far is kept`;
