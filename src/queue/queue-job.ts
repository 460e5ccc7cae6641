// What travels through the queue: one job per distinct dump content and analysis options. The
// job id is derived from both, so the same dump enqueued twice (a second collector, a copy under
// another name, a restarted upload scan) is one job, analysed once; its result stays in Redis
// until it expires, so a later enqueue of the same content finds it done.
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { AnalyzeEngineName } from '../report/analyze/analyze-record.js';
import type { ScriptStep } from '../workflows/analyze/triage-script.js';

/** Default `--queue-name`. */
export const DEFAULT_QUEUE_NAME = 'cdb-harness';

/** Bumped when a job's shape changes in a way older workers cannot read. */
export const JOB_FORMAT = 1;

/** The analysis options that change a dump's record: part of the job id. */
export interface JobAnalysisOptions {
  engine: AnalyzeEngineName;
  timeoutMs: number;
  walkStacks: boolean;
  skipModules?: string[];
  /** A `--script` given to the producer, sent as steps (workers use their own default else). */
  script?: ScriptStep[];
}

export interface QueueJobData {
  format: typeof JOB_FORMAT;
  /** Where workers read the dump: an absolute path (local, UNC, NFS) or an http(s) URL. */
  location: string;
  size: number;
  sha256: string;
  /** Engines that may take the job; a worker only takes jobs of the engine it runs. */
  engines: AnalyzeEngineName[];
  options: JobAnalysisOptions;
}

/** `sha256(dump) + '.' + 16 hex of sha256(options)`: BullMQ ids must not contain ':'. */
export function jobIdOf(sha256: string, options: JobAnalysisOptions): string {
  const canonical = JSON.stringify([
    options.engine,
    options.timeoutMs,
    options.walkStacks,
    options.skipModules ?? null,
    options.script ?? null,
  ]);
  const optionsHash = createHash('sha256').update(canonical).digest('hex').slice(0, 16);
  return `${sha256}.${optionsHash}`;
}

/**
 * The BullMQ queue of one engine: `NAME-ENGINE`. One queue per engine is how a worker takes only
 * what it can run (BullMQ workers take any job of their queue; there is no per-job filter).
 */
export function engineQueueName(name: string, engine: AnalyzeEngineName): string {
  return `${name}-${engine}`;
}

/** `--queue-name`: letters, digits, `.`, `_`, `-` (Redis key parts; BullMQ refuses `:`). */
export function checkQueueName(name: string): string {
  // Sample: "crash-triage.prod"
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
    throw new UsageError(
      `--queue-name wants letters, digits, '.', '_' or '-' (at most 100), got "${name}"`,
    );
  }
  return name;
}

export function isUrlLocation(location: string): boolean {
  return /^https?:\/\//i.test(location);
}
