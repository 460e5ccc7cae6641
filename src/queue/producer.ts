// The producer half of `analyze --queue`: each input (a file, or an http(s) URL) is hashed, given
// its job id (content + options) and added to the engine's queue in bulk. Adding a job whose id is
// already in Redis changes nothing there (https://docs.bullmq.io/guide/jobs/job-ids): a dump
// enqueued twice is analysed once, and a finished one is found finished.
import type { Queue } from 'bullmq';
import { sha256File } from '../workflows/analyze/file-hash.js';
import { readResult } from './job-result.js';
import {
  isUrlLocation,
  JOB_FORMAT,
  type JobAnalysisOptions,
  type QueueJobData,
} from './queue-job.js';
import { hashUrl, type DownloadLimits } from './url-dump.js';

/** Finished jobs (and their results) are kept this long for repeated enqueues and `--resume`. */
export const KEEP_FINISHED_SECONDS = 7 * 24 * 3600;

/** A job that throws is tried this many times in all (on any worker) before it fails for good. */
export const JOB_ATTEMPTS = 2;

/** How many adds go to Redis in one round trip. */
const BULK = 500;

export interface HashedInput {
  file: string;
  sha256: string;
  size: number;
}

/** Size and sha256 of a file or URL. Throws the file's own error (IO, abort) for the caller. */
export async function hashInput(file: string, limits: DownloadLimits): Promise<HashedInput> {
  const hashed = isUrlLocation(file)
    ? await hashUrl(file, limits)
    : await sha256File(file, limits.signal);
  return { file, ...hashed };
}

export function jobDataOf(input: HashedInput, options: JobAnalysisOptions): QueueJobData {
  return {
    format: JOB_FORMAT,
    location: input.file,
    size: input.size,
    sha256: input.sha256,
    engines: options.engines,
    options,
  };
}

/** Adds jobs (id → data) in bulk; ids already in Redis are left as they are. */
export async function enqueueJobs(
  queue: Queue,
  jobs: ReadonlyMap<string, QueueJobData>,
): Promise<void> {
  const entries = [...jobs];
  for (let at = 0; at < entries.length; at += BULK) {
    await queue.addBulk(
      entries.slice(at, at + BULK).map(([jobId, data]) => ({
        name: 'analyze',
        data,
        opts: {
          jobId,
          attempts: JOB_ATTEMPTS,
          removeOnComplete: { age: KEEP_FINISHED_SECONDS },
          removeOnFail: { age: KEEP_FINISHED_SECONDS },
        },
      })),
    );
  }
}

/**
 * `--reanalyze` ('all') and `--retry-failed` ('failed'): finished jobs of these ids are removed
 * before they are added again, so their dumps are analysed afresh instead of answered from Redis
 * (a failed job, or a result whose record is not ok, for 'failed'). Jobs waiting or running are
 * left alone. Returns how many were removed.
 */
export async function dropFinished(
  queue: Queue,
  ids: readonly string[],
  which: 'all' | 'failed',
): Promise<number> {
  let dropped = 0;
  for (const id of ids) {
    const job = await queue.getJob(id);
    if (job === undefined) continue;
    const state = await job.getState();
    if (state !== 'completed' && state !== 'failed') continue;
    if (which === 'failed' && state === 'completed') {
      const read = readResult(job.returnvalue as unknown);
      if (read.ok && read.record.ok) continue;
    }
    await job.remove().catch(() => undefined);
    dropped++;
  }
  return dropped;
}
