// Why a job failed, read from BullMQ's failure reason: the dump's fault (its analysis threw on
// every attempt: a quarantine record that stays with the dump's content), or not the dump's
// fault. A worker that cannot read the job's format, cannot see the shared folder, has lost its
// debugger, or was killed says nothing about the dump: such a failure goes back to the queue for
// another worker and is never kept in Redis as the dump's result. A file whose content changed
// between enqueue and analysis (`CHANGED`) is hashed again by the collector and enqueued as what it
// now holds.
import { UnrecoverableError } from 'bullmq';
import type { ResultMaker } from './job-result.js';

/** The failure reason of a job the worker could not run (sample in failureKind). */
const WORKER_FAULT = 'worker fault: ';
/** The failure reason of a path job whose file no longer has the enqueued sha256. */
const CHANGED = 'CHANGED: ';

export type FailureKind = 'dump' | 'worker' | 'killed' | 'changed';

/** Thrown by a worker for a job it cannot run: not retried by BullMQ, re-added by the collector. */
export function workerFault(message: string, by: ResultMaker): UnrecoverableError {
  return new UnrecoverableError(`${WORKER_FAULT}${message} [${makerText(by)}]`);
}

/** Thrown by a worker for a path job whose file changed since it was enqueued. */
export function changedFault(message: string, by: ResultMaker): UnrecoverableError {
  return new UnrecoverableError(`${CHANGED}${message} [${makerText(by)}]`);
}

/** `worker builtin-host-4242, cdb-harness 0.1.0, engine builtin, job format 1` */
export function makerText(by: ResultMaker): string {
  return `worker ${by.worker}, cdb-harness ${by.version}, engine ${by.engine}, job format ${by.jobFormat}`;
}

export function failureKind(reason: string | undefined): FailureKind {
  const why = reason ?? '';
  // Sample: "CHANGED: /dumps/x.dmp has sha256 9f…, size 1024; enqueued as 3a…, size 1024 [worker …]"
  if (why.startsWith(CHANGED)) return 'changed';
  // Sample: "worker fault: cannot open /mnt/dumps/x.dmp: ENOENT … [worker builtin-h-42, …]"
  if (why.startsWith(WORKER_FAULT)) return 'worker';
  // Sample (workers before WORKER_FAULT): "job 3a….9c has format 2; this worker reads 1"
  if (/^job \S+ has format .*; this worker reads \d+$/.test(why)) return 'worker';
  // BullMQ's text for a job whose lock expired more than maxStalledCount times, sample:
  // "job stalled more than allowable limit"
  if (/stalled more than allowable limit/i.test(why)) return 'killed';
  return 'dump';
}

/** The reason without the prefix that classified it. */
export function faultMessage(reason: string): string {
  for (const prefix of [WORKER_FAULT, CHANGED]) {
    if (reason.startsWith(prefix)) return reason.slice(prefix.length);
  }
  return reason;
}
