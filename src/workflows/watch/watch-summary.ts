// The end of a watch: summary.json, built from the exception log and how the session ended.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, errorToJSON } from '../../errors.js';
import { round } from './exception-handler.js';
import type { ExceptionLog } from './exception-log.js';
import { SIGNATURE_ALGORITHM } from './signature.js';
import type { WatchedProcess } from './watch-target.js';
import type { WatchEndReason, WatchEngine, WatchSummary } from './watch-records.js';

export interface SummaryInput {
  engine: WatchEngine;
  proc: WatchedProcess;
  outDir: string;
  log: ExceptionLog;
  startedAt: Date;
  startMs: number;
  detached: boolean;
  targetAlive: boolean | null;
  endReason: WatchEndReason;
  failure: unknown;
}

export function buildSummary(input: SummaryInput): WatchSummary {
  const { log, proc } = input;
  const summary: WatchSummary = {
    schemaVersion: 1,
    engine: input.engine,
    process: { name: proc.name, ...(proc.pid === undefined ? {} : { pid: proc.pid }) },
    startedAt: input.startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    durationMs: round(performance.now() - input.startMs),
    exceptions: log.count,
    dumps: log.dumps,
    bySignature: log.bySignature,
    byReason: log.byReason,
    totalSuspendedMs: round(log.totalSuspendedMs),
    medianSuspendedMs: log.medianSuspendedMs(),
    detached: input.detached,
    targetAlive: input.targetAlive,
    endReason: input.endReason,
    outDir: input.outDir,
    logPath: log.path,
    dumpPaths: log.dumpPaths,
    signatureAlgorithm: SIGNATURE_ALGORITHM,
  };
  if (input.failure !== null) summary.error = errorToJSON(input.failure, { brief: true });
  return summary;
}

/** Writes summary.json (owner-only); a failure is noted in the summary, which still returns. */
export function writeSummary(summary: WatchSummary, outDir: string): void {
  try {
    writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`, {
      mode: 0o600,
    });
  } catch (error) {
    // The out dir may be the very thing that failed; the summary still goes back to the caller.
    summary.error ??= {
      code: 'IO',
      message: `summary.json not written: ${errorMessage(error)}`,
    };
  }
}
