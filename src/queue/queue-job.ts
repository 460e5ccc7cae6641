// What travels through the queue: one job per distinct dump content and analysis options. The
// job id is derived from both, so the same dump enqueued twice (a second collector, a copy under
// another name, a restarted upload scan) is one job, analysed once; its result stays in Redis
// until it expires, so a later enqueue of the same content finds it done.
import type { ListEdits } from '../report/analyze/signature-lists.js';
import { createHash } from 'node:crypto';
import { DIALECT_NAMES, getDialect } from '../engine/dialects/index.js';
import { UsageError } from '../errors.js';
import type { AnalyzeEngineName } from '../report/analyze/analyze-record.js';
import type { ScriptStep } from '../workflows/analyze/triage-script.js';

/** Default `--queue-name`. */
export const DEFAULT_QUEUE_NAME = 'cdb-harness';

/** Bumped when a job's shape changes in a way older workers cannot read. */
export const JOB_FORMAT = 1;

/**
 * The engines that can triage Windows dumps, in the registry's order (cdb, winedbg) and then the
 * builtin reader: what "any engine" means. dotnet-dump reads .NET dumps only.
 */
export const TRIAGE_ENGINES: readonly AnalyzeEngineName[] = [
  ...DIALECT_NAMES.filter((name) => getDialect(name).abilities.windowsTargets),
  'builtin',
];

/** The analysis options that change a dump's record: part of the job id. */
export interface JobAnalysisOptions {
  /** The engines that may analyse the job, in TRIAGE_ENGINES order (see engineSet). */
  engines: AnalyzeEngineName[];
  timeoutMs: number;
  walkStacks: boolean;
  skipModules?: string[];
  /** `--signature-lists`, added to the defaults. */
  signatureLists?: ListEdits;
  /** A `--script` given to the producer, sent as steps (workers use their own default else). */
  script?: ScriptStep[];
}

export interface QueueJobData {
  format: typeof JOB_FORMAT;
  /** Where workers read the dump: an absolute path (local, UNC, NFS) or an http(s) URL. */
  location: string;
  size: number;
  sha256: string;
  /** Engines that may take the job: a worker takes only jobs one of whose engines it runs. */
  engines: AnalyzeEngineName[];
  options: JobAnalysisOptions;
}

/**
 * `sha256(dump) + '.' + 16 hex of sha256(options)`: BullMQ ids must not contain ':'. A job for one
 * engine hashes that engine's name (the ids of jobs enqueued before engine sets existed).
 */
export function jobIdOf(sha256: string, options: JobAnalysisOptions): string {
  const canonical = JSON.stringify([
    options.engines.join('+'),
    options.timeoutMs,
    options.walkStacks,
    options.skipModules ?? null,
    options.script ?? null,
    // Only when given, so the ids of jobs without lists stay what they were.
    ...(options.signatureLists === undefined ? [] : [options.signatureLists]),
  ]);
  const optionsHash = createHash('sha256').update(canonical).digest('hex').slice(0, 16);
  return `${sha256}.${optionsHash}`;
}

/**
 * `--engine` of `analyze --queue`: one engine, a comma list (`cdb,builtin`), or `any`/`auto`
 * (every triage engine). Returned without repeats in TRIAGE_ENGINES order, so the same set is the
 * same queue and the same job id however it was spelled.
 */
export function engineSet(spec: string): AnalyzeEngineName[] {
  const words = spec
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
  if (words.length === 1 && (words[0] === 'any' || words[0] === 'auto')) return [...TRIAGE_ENGINES];
  const unknown = words.filter((w) => !(TRIAGE_ENGINES as readonly string[]).includes(w));
  if (words.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--engine with --queue wants any, or one or more of ${TRIAGE_ENGINES.join(', ')} (comma-separated), got "${spec}"`,
    );
  }
  return TRIAGE_ENGINES.filter((engine) => words.includes(engine));
}

/**
 * The BullMQ queue of the jobs an engine set may take: `NAME-ENGINE` for one engine, `NAME-any`
 * for every triage engine, `NAME-E1+E2` otherwise. BullMQ workers take any job of the queues they
 * serve and have no per-job filter (https://github.com/taskforcesh/bullmq/issues/84), so the set
 * is in the queue's name and a worker serves every queue whose set holds its engine (servedQueues).
 */
export function engineQueueName(name: string, engines: readonly AnalyzeEngineName[]): string {
  const set = TRIAGE_ENGINES.filter((engine) => engines.includes(engine));
  // An engine outside the triage list (a worker started with another dialect) keeps its own queue.
  if (set.length === 0) return `${name}-${engines.join('+')}`;
  return set.length === TRIAGE_ENGINES.length ? `${name}-any` : `${name}-${set.join('+')}`;
}

/** Every queue a worker running `engine` takes jobs from: each engine set that holds it. */
export function servedQueues(name: string, engine: AnalyzeEngineName): string[] {
  if (!TRIAGE_ENGINES.includes(engine)) return [engineQueueName(name, [engine])];
  const others = TRIAGE_ENGINES.filter((e) => e !== engine);
  const queues: string[] = [];
  // Its own queue first, then the sets with more engines (any last).
  for (let size = 0; size <= others.length; size++) {
    for (let mask = 0; mask < 1 << others.length; mask++) {
      const picked = others.filter((_, i) => (mask & (1 << i)) !== 0);
      if (picked.length === size) queues.push(engineQueueName(name, [engine, ...picked]));
    }
  }
  return queues;
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
