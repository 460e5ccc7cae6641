// The collector half of `analyze --queue`: a table of the jobs this run waits for (job id → the
// input files that share that content), and the one place a finished job becomes records. Two
// roads lead here and either may come first or twice: BullMQ's event stream (completed/failed, as
// they happen) and a sweep that asks Redis about every job still waited for (after a restart of
// the collector, of Redis, or events trimmed away). A job leaves the table when its records are
// written, so each input gets exactly one record.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AnalyzeDumpRecord } from '../report/analyze/analyze-record.js';
import { emptyRecord } from '../workflows/analyze/analyze-one.js';
import { JOB_ATTEMPTS, enqueueJobs } from './producer.js';
import type { QueueJobData } from './queue-job.js';

export interface PendingJob {
  data: QueueJobData;
  files: string[];
}

export interface CollectorHooks {
  /** Writes one input's record (the CLI's progress follows from it). */
  write(record: AnalyzeDumpRecord): Promise<void>;
  /** Jobs that had vanished from Redis and were added again. */
  onRequeued?(count: number): void;
}

export class Collector {
  readonly pending = new Map<string, PendingJob>();
  private readonly busy = new Set<string>();

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

  /**
   * A job's result as BullMQ's `completed` event carries it (no round trip to Redis): the common
   * road, one event per job.
   */
  async completed(jobId: string, record: AnalyzeDumpRecord): Promise<void> {
    const entry = this.pending.get(jobId);
    if (entry === undefined || this.busy.has(jobId)) return;
    this.pending.delete(jobId);
    for (const file of entry.files) await this.hooks.write({ ...record, file });
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
      if (state === 'completed') {
        record = job.returnvalue as AnalyzeDumpRecord;
      } else if (state === 'failed') {
        record = this.failedRecord(
          entry.data,
          job.failedReason,
          job.attemptsMade,
          job.stalledCounter,
        );
      } else {
        return;
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

  /**
   * A job BullMQ gave up on: its analysis threw on every attempt, or the workers running it died
   * twice (stalled twice). Either way the dump is the likely cause: one quarantine record.
   */
  private failedRecord(
    data: QueueJobData,
    reason: string | undefined,
    attempts: number,
    stalled: number,
  ): AnalyzeDumpRecord {
    const why = reason ?? 'no reason recorded';
    // BullMQ's text for a job whose lock expired more than maxStalledCount times.
    const killed = /stalled more than allowable limit/i.test(why);
    const message = killed
      ? `quarantined: the workers analysing this dump died twice (${why})`
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
      attempts: Math.max(attempts, stalled + 1),
      error: { code: killed ? 'WORKER_DIED' : 'ANALYSIS_FAILED', message },
    };
  }
}
