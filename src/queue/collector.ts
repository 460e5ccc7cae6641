// The collector half of `analyze --queue`: a table of the jobs this run waits for (job id → the
// input files that share that content), and the one place a finished job becomes records. Two
// roads lead here and either may come first or twice: BullMQ's event stream (completed/failed, as
// they happen) and a sweep that asks Redis about every job still waited for (after a restart of
// the collector, of Redis, or events trimmed away). A job leaves the table when its records are
// written, so each input gets exactly one record.
//
// A failure that is not the dump's fault (job-faults.ts: a worker that could not run the job, or
// was killed) is not a result: the job is removed and added again for another worker, up to
// WORKER_RETRIES times in one collection; past that its record says why, and the job is still
// removed, so a later collection analyses the dump afresh. A path whose content changed since it
// was enqueued goes back to the producer (`changed`), which hashes it again.
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AnalyzeDumpRecord } from '../report/analyze/analyze-record.js';
import { emptyRecord } from '../workflows/analyze/analyze-one.js';
import { failureKind, faultMessage, type FailureKind } from './job-faults.js';
import { readResult } from './job-result.js';
import { JOB_ATTEMPTS, enqueueJobs } from './producer.js';
import { isUrlLocation, type QueueJobData } from './queue-job.js';

/** Times one collection gives a job back to the queue after a worker could not run it. */
export const WORKER_RETRIES = 2;
/**
 * Times one collection gives back a job whose workers died twice (BullMQ's stalled limit): a dump
 * that really kills workers is quarantined after 4 deaths, for this collection only.
 */
export const KILLED_RETRIES = 1;

export interface PendingJob {
  data: QueueJobData;
  files: string[];
}

export interface CollectorHooks {
  /** Writes one input's record (the CLI's progress follows from it). */
  write(record: AnalyzeDumpRecord): Promise<void>;
  /** Jobs that had vanished from Redis and were added again. */
  onRequeued?(count: number): void;
  /** A job given back to the queue after a failure that was not the dump's fault. */
  onRetry?(jobId: string, kind: FailureKind, reason: string): void;
  /**
   * The files of a path job whose content changed after it was enqueued: the producer hashes them
   * again and enqueues what they hold now (the old job is already removed).
   */
  changed(files: readonly string[], data: QueueJobData, reason: string): Promise<void>;
}

export class Collector {
  readonly pending = new Map<string, PendingJob>();
  private readonly busy = new Set<string>();
  /** Jobs given back to the queue by this collection, by id. */
  private readonly retried = new Map<string, number>();

  constructor(
    private readonly queue: Queue,
    /** A plain connection for pipelined reads (BullMQ 6 keeps its own client private). */
    private readonly redis: Redis,
    private readonly hooks: CollectorHooks,
  ) {}

  /** Waits for `file`'s record from job `jobId` (a job may carry several files: copies). */
  expect(jobId: string, data: QueueJobData, file: string): boolean {
    const known = this.pending.get(jobId);
    if (known !== undefined) {
      known.files.push(file);
      return false;
    }
    this.pending.set(jobId, { data, files: [file] });
    return true;
  }

  /** `file` is no longer waited for (watch mode took it again: its content changed). */
  forget(file: string): void {
    for (const [id, entry] of this.pending) {
      const at = entry.files.indexOf(file);
      if (at < 0) continue;
      entry.files.splice(at, 1);
      if (entry.files.length === 0) this.pending.delete(id);
    }
  }

  /**
   * A job's result as BullMQ's `completed` event carries it (no round trip to Redis): the common
   * road, one event per job.
   */
  async completed(jobId: string, value: unknown): Promise<void> {
    const entry = this.pending.get(jobId);
    if (entry === undefined || this.busy.has(jobId)) return;
    const read = readResult(value);
    // Anything but a plain good result takes the slow road (a round trip for the job).
    if (!read.ok || workerIo(entry.data, read.record)) return this.settle(jobId);
    this.pending.delete(jobId);
    for (const file of entry.files) await this.hooks.write({ ...read.record, file });
  }

  /** A job said (by an event or a sweep) to be finished: its records, if it really is. */
  async settle(jobId: string): Promise<void> {
    const entry = this.pending.get(jobId);
    if (entry === undefined || this.busy.has(jobId)) return;
    this.busy.add(jobId);
    try {
      const job = await this.queue.getJob(jobId);
      if (job === undefined) return;
      const state = await job.getState();
      let record: AnalyzeDumpRecord;
      let kind: FailureKind = 'dump';
      let reason = job.failedReason ?? 'no reason recorded';
      if (state === 'completed') {
        const read = readResult(job.returnvalue as unknown);
        if (!read.ok) {
          record = this.badResult(entry.data, read.reason);
        } else {
          record = read.record;
          // A result of a worker that could not read the file (before workers checked it first).
          if (workerIo(entry.data, record)) {
            kind = 'worker';
            reason = record.error?.message ?? 'IO';
          }
        }
      } else if (state === 'failed') {
        kind = failureKind(job.failedReason);
        record = this.failedRecord(entry.data, job, kind);
      } else {
        return;
      }
      if (kind === 'changed') {
        this.pending.delete(jobId);
        await removeJob(job);
        await this.hooks.changed(entry.files, entry.data, faultMessage(reason));
        return;
      }
      if (kind !== 'dump') {
        const times = this.retried.get(jobId) ?? 0;
        // Not the dump's result either way: removed, so no later collection finds it.
        await removeJob(job);
        if (times < (kind === 'killed' ? KILLED_RETRIES : WORKER_RETRIES)) {
          this.retried.set(jobId, times + 1);
          this.hooks.onRetry?.(jobId, kind, reason);
          await enqueueJobs(this.queue, new Map([[jobId, entry.data]]));
          return;
        }
      }
      // Gone from the table before the writes: a second settle of the same job finds nothing.
      this.pending.delete(jobId);
      for (const file of entry.files) await this.hooks.write({ ...record, file });
    } finally {
      this.busy.delete(jobId);
    }
  }

  /**
   * Asks Redis about every job waited for, in one pipelined round trip per 1,000: finished ones
   * are settled; missing ones (expired, or lost by a Redis without persistence) are added again.
   */
  async sweep(): Promise<void> {
    const ids = [...this.pending.keys()].filter((id) => !this.busy.has(id));
    const missing = new Map<string, QueueJobData>();
    for (let at = 0; at < ids.length; at += 1000) {
      const chunk = ids.slice(at, at + 1000);
      const pipeline = this.redis.pipeline();
      for (const id of chunk) pipeline.hmget(this.queue.toKey(id), 'timestamp', 'finishedOn');
      const answers = (await pipeline.exec()) ?? [];
      for (const [i, id] of chunk.entries()) {
        const [error, value] = answers[i] ?? [null, null];
        if (error !== null) continue;
        const [timestamp, finishedOn] = (value as (string | null)[] | null) ?? [null, null];
        if (timestamp === null) {
          const entry = this.pending.get(id);
          if (entry !== undefined) missing.set(id, entry.data);
        } else if (finishedOn !== null) {
          await this.settle(id);
        }
      }
    }
    if (missing.size > 0) {
      await enqueueJobs(this.queue, missing);
      this.hooks.onRequeued?.(missing.size);
    }
  }

  /** A result the collector cannot read (not a record, over the bounds): failed, with why. */
  private badResult(data: QueueJobData, reason: string): AnalyzeDumpRecord {
    const [engine = 'builtin'] = data.engines;
    return {
      ...emptyRecord(data.location, { sha256: data.sha256, size: data.size }, engine),
      error: { code: 'QUEUE', message: `the job's result was refused: ${reason}` },
    };
  }

  /**
   * A job BullMQ gave up on: its analysis threw on every attempt (the dump is the likely cause:
   * one quarantine record), the workers running it died twice, or no worker could run it.
   */
  private failedRecord(data: QueueJobData, job: Job, kind: FailureKind): AnalyzeDumpRecord {
    const why = job.failedReason ?? 'no reason recorded';
    const attempts = job.attemptsMade;
    const stalled = job.stalledCounter;
    const killed = kind === 'killed';
    const retries = this.retried.get(job.id ?? '') ?? 0;
    if (kind === 'worker') {
      const [engine = 'builtin'] = data.engines;
      return {
        ...emptyRecord(data.location, { sha256: data.sha256, size: data.size }, engine),
        error: {
          code: 'WORKER_FAULT',
          message: `no worker could run this job (${retries + 1} tries): ${faultMessage(why)}`,
        },
      };
    }
    const message = killed
      ? `quarantined: the workers analysing this dump died ${2 * (retries + 1)} times (${why})`
      : `quarantined: the analysis failed on ${Math.max(attempts, JOB_ATTEMPTS)} attempts: ${why}`;
    // Which worker's engine failed is not kept by BullMQ: a job one engine could take names it;
    // a job several could take names the first and says so.
    const [engine = 'builtin', ...others] = data.engines;
    const record = emptyRecord(data.location, { sha256: data.sha256, size: data.size }, engine);
    if (others.length > 0)
      record.warnings.push(
        `engine: not known (the job could run on ${data.engines.join(', ')}; no attempt finished)`,
      );
    return {
      ...record,
      quarantined: true,
      attempts: killed ? 2 * (retries + 1) : Math.max(attempts, stalled + 1),
      error: { code: killed ? 'WORKER_DIED' : 'ANALYSIS_FAILED', message },
    };
  }
}

/**
 * A record that says the worker could not read a path job's file (IO): written by workers before
 * they checked the file first, and about that worker's view of the share, not about the dump.
 */
function workerIo(data: QueueJobData, record: AnalyzeDumpRecord): boolean {
  return !record.ok && record.error?.code === 'IO' && !isUrlLocation(data.location);
}

/** Removes a finished job (a job another collector already removed or re-added is left alone). */
async function removeJob(job: Job): Promise<void> {
  await job.remove().catch(() => undefined);
}
