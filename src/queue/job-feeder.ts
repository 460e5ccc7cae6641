// The producer's side of a queued analyze run: inputs hashed a few at a time and added to Redis
// as they are hashed (workers start while the rest is read), resume skips and unreadable inputs
// recorded at once, and files that changed under a worker hashed and enqueued again.
import type { Queue } from 'bullmq';
import { createHash } from 'node:crypto';
import { AbortedError, isHarnessError } from '../errors.js';
import type { AnalyzeDumpRecord, AnalyzeEngineName } from '../report/analyze/analyze-record.js';
import { emptyRecord } from '../workflows/analyze/analyze-one.js';
import { resumeKey } from '../workflows/analyze/file-hash.js';
import type { Collector } from './collector.js';
import { dropFinished, enqueueJobs, hashInput, jobDataOf, type HashedInput } from './producer.js';
import { jobIdOf, type JobAnalysisOptions, type QueueJobData } from './queue-job.js';
import type { DownloadLimits } from './url-dump.js';

/** Hashing reads files (or URLs) several at a time: I/O bound, not CPU bound. */
const HASH_PARALLEL = 8;
/** Jobs go to Redis in groups of about this many while the inputs are being hashed. */
const ADD_EVERY = 64;
/** Times a file found changed under a worker is hashed and enqueued again. */
const CHANGED_TRIES = 2;

export interface JobFeederContext {
  queue: Queue;
  collector: Pick<Collector, 'expect' | 'sweep'>;
  jobOptions: JobAnalysisOptions;
  /** The engine named in the records the producer writes itself. */
  ownEngine: AnalyzeEngineName;
  /** resumeKey of every record already in the out folder (--resume). */
  recorded: ReadonlySet<string>;
  /** --reanalyze ('all') or --retry-failed ('failed'): earlier results dropped first. */
  fresh: 'all' | 'failed' | undefined;
  limits: DownloadLimits;
  /** Writes a record (or, with 'skipped-resume', reports one skipped) as the collector does. */
  write: (record: AnalyzeDumpRecord, status?: 'skipped-resume') => Promise<void>;
}

export class JobFeeder {
  /** Inputs counted for progress (a re-hash does not count again). */
  total = 0;
  /** Inputs skipped because the out folder already records them. */
  resumed = 0;
  /** Job ids whose earlier results --reanalyze / --retry-failed already dropped this run. */
  readonly #dropped = new Set<string>();
  /** How often each file was found changed under a worker (see rehash). */
  readonly #changes = new Map<string, number>();

  constructor(private readonly context: JobFeederContext) {}

  /** Hashes and enqueues `inputs`; `again` for a re-hash called from a sweep. */
  async enqueue(inputs: readonly string[], again = false): Promise<void> {
    const { collector, jobOptions, limits } = this.context;
    if (!again) this.total += inputs.length;
    const jobs = new Map<string, QueueJobData>();
    for (let at = 0; at < inputs.length; at += HASH_PARALLEL) {
      if (jobs.size >= ADD_EVERY) {
        await this.#add(jobs);
        jobs.clear();
      }
      const batch = inputs.slice(at, at + HASH_PARALLEL);
      const hashed = await Promise.all(
        batch.map((file) => hashInput(file, limits).catch((error: unknown) => error)),
      );
      for (const [i, result] of hashed.entries()) {
        const file = batch[i]!;
        if (!('sha256' in (result as object))) {
          if (
            limits.signal?.aborted === true ||
            (isHarnessError(result) && result.code === 'ABORTED')
          )
            throw new AbortedError('enqueue interrupted');
          await this.context.write(unreadable(file, result, this.context.ownEngine));
          continue;
        }
        const input = result as HashedInput;
        if (this.context.recorded.has(resumeKey(input))) {
          this.resumed++;
          await this.context.write(
            emptyRecord(file, input, this.context.ownEngine),
            'skipped-resume',
          );
          continue;
        }
        const data = jobDataOf(input, jobOptions);
        const id = jobIdOf(input.sha256, jobOptions);
        if (collector.expect(id, data, file)) jobs.set(id, data);
      }
    }
    await this.#add(jobs);
    // Jobs that were already finished in Redis (an earlier run, a copy) send no new event; a
    // re-hash (`again`, called from a sweep) leaves them to the next sweep.
    if (!again) await collector.sweep();
  }

  /**
   * Files whose content changed between enqueue and analysis: hashed again and enqueued as what
   * they hold now, as a local run analyses what a file holds when it reads it. A file that keeps
   * changing gets a CHANGED record after CHANGED_TRIES.
   */
  async rehash(changedFiles: readonly string[], data: QueueJobData, reason: string): Promise<void> {
    const again: string[] = [];
    for (const file of changedFiles) {
      const times = (this.#changes.get(file) ?? 0) + 1;
      this.#changes.set(file, times);
      if (times <= CHANGED_TRIES) {
        again.push(file);
        continue;
      }
      const record = emptyRecord(
        file,
        { sha256: data.sha256, size: data.size },
        this.context.ownEngine,
      );
      await this.context.write({
        ...record,
        error: { code: 'CHANGED', message: `changed ${times} times while queued: ${reason}` },
      });
    }
    if (again.length > 0) await this.enqueue(again, true);
  }

  async #add(jobs: Map<string, QueueJobData>): Promise<void> {
    const { queue, fresh } = this.context;
    if (fresh !== undefined) {
      const ids = [...jobs.keys()].filter((id) => !this.#dropped.has(id));
      for (const id of ids) this.#dropped.add(id);
      await dropFinished(queue, ids, fresh);
    }
    await enqueueJobs(queue, jobs);
  }
}

/** An input the producer could not read or download: its failed record, written at once. */
function unreadable(file: string, error: unknown, engine: AnalyzeEngineName): AnalyzeDumpRecord {
  const sha256 = createHash('sha256').update(`unreadable:${file}`).digest('hex');
  const message = isHarnessError(error)
    ? error.shortMessage
    : error instanceof Error
      ? error.message
      : String(error);
  return { ...emptyRecord(file, { sha256, size: 0 }, engine), error: { code: 'IO', message } };
}
