// `cdb-harness worker`: takes analyze jobs from the queues of the engine it runs (its own, and each
// engine set that holds it, `--engine any` jobs included) and returns each dump's record as the
// job's result. The analysis is the local one, unchanged (analyzeOneDump: one
// debugger process per dump, the per-dump deadline, a debugger that dies twice quarantines). What
// the queue adds: a path job's file is hashed first and must still hold the enqueued content
// (else the job fails as CHANGED); the record is bounded as a local run bounds it and returned as
// a JobResult (job-result.ts) that names this worker. A worker that dies mid-dump leaves a job
// whose lock expires, and BullMQ's stalled check hands it to another worker; a job this worker
// cannot run (its format, a file it cannot open, no debugger) fails as a worker fault, which the
// collector gives back to the queue (job-faults.ts); a job whose analysis throws twice fails for
// good and the collector writes one quarantine record for it.
// Stopping (the AbortSignal): current dumps finish, no new job is taken. Stopping hard (`hard`):
// dumps in flight are abandoned and their jobs go back to waiting, not counted as failures.
import { WaitingError, type Job } from 'bullmq';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isHarnessError } from '../errors.js';
import { packageInfo } from '../package-info.js';
import type { AnalyzeDumpRecord } from '../report/analyze/analyze-record.js';
import { createSigner } from '../report/analyze/signature.js';
import { validate } from '../report/schemas.js';
import { debuggerLaunchOptions } from '../workflows/debugger-options.js';
import {
  analyzeOneDump,
  emptyRecord,
  type DumpRunContext,
} from '../workflows/analyze/analyze-one.js';
import {
  chooseEngine,
  type EngineChoice,
  type EngineRequest,
} from '../workflows/analyze/engine-choice.js';
import { sha256File } from '../workflows/analyze/file-hash.js';
import { KEEP_DUMP_BYTES } from '../workflows/analyze/input-outcome.js';
import { builtinSupplier } from '../workflows/analyze/symbols-setup.js';
import {
  defaultScriptPath,
  loadTriageScript,
  type ScriptStep,
} from '../workflows/analyze/triage-script.js';
import { changedFault, workerFault } from './job-faults.js';
import { packResult, type JobResult, type ResultMaker } from './job-result.js';
import { isUrlLocation, JOB_FORMAT, servedQueues, type QueueJobData } from './queue-job.js';
import { SlotBudget, SlotWorker } from './slot-worker.js';
import { connectionOptions, probeRedis, type RedisTarget } from './redis-url.js';
import {
  DEFAULT_DOWNLOAD_TIMEOUT_MS,
  DEFAULT_MAX_DOWNLOAD_BYTES,
  downloadDump,
  type DownloadedDump,
} from './url-dump.js';

/** BullMQ's lock: renewed every half of it while a dump runs; a dead worker's job waits this long. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;

export type WorkerEvent =
  | {
      type: 'ready';
      engine: EngineChoice;
      /** The engine's own queue; `queues`: every queue served (own first, `NAME-any` last). */
      queue: string;
      queues: string[];
      jobs: number;
      redisVersion: string;
    }
  | { type: 'job-start'; jobId: string; location: string; attempt: number }
  | { type: 'job-done'; jobId: string; location: string; record: AnalyzeDumpRecord; ms: number }
  | { type: 'job-abandoned'; jobId: string; location: string }
  /** The job's attempt failed (the analysis threw, or the result was refused: lock lost). */
  | { type: 'job-failed'; jobId: string; location: string; message: string }
  | { type: 'redis'; message: string }
  | { type: 'stopping' };

export interface WorkerOptions {
  target: RedisTarget;
  queueName: string;
  engine?: EngineRequest;
  jobs?: number;
  symbolPath?: string;
  symbolCacheDir?: string;
  imagePaths?: readonly string[];
  /** The Wine prefix recorded `C:\` module paths are looked up in (`--wine-prefix`). */
  winePrefix?: string;
  debuggerPath?: string;
  debuggerCommandPrefix?: { file: string; args: readonly string[] };
  env?: NodeJS.ProcessEnv;
  /** Where debugger raw outputs are kept (absolute paths in records); default: not kept. */
  outDir?: string;
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (default: the lock duration). */
  stalledIntervalMs?: number;
  maxDownloadBytes?: number;
  downloadTimeoutMs?: number;
  /** Graceful stop: finish current dumps, take no new one. */
  signal?: AbortSignal;
  /** Hard stop: abandon dumps in flight (their jobs go back to waiting). */
  hard?: AbortSignal;
  onEvent?: (event: WorkerEvent) => void;
}

export async function runWorker(options: WorkerOptions): Promise<{ done: number }> {
  const emit = (event: WorkerEvent) => options.onEvent?.(event);
  const choice = chooseEngine(options.engine ?? 'auto', options.env ?? process.env, {
    ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
    hasCommandPrefix: options.debuggerCommandPrefix !== undefined,
  });
  const defaultSteps: ScriptStep[] =
    choice.engine === 'builtin' ? [] : loadTriageScript(defaultScriptPath(choice.engine));
  const { version } = await probeRedis(options.target);
  const queues = servedQueues(options.queueName, choice.engine);
  const jobs = Math.max(1, options.jobs ?? 1);
  const hard = options.hard ?? new AbortController().signal;
  const supplier = await builtinSupplier({
    symbolFiles: choice.engine === 'builtin',
    ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
    ...(options.symbolCacheDir === undefined ? {} : { symbolCacheDir: options.symbolCacheDir }),
    ...(options.imagePaths === undefined ? {} : { imagePaths: options.imagePaths }),
    ...(options.winePrefix === undefined ? {} : { winePrefix: options.winePrefix }),
    ...(options.env === undefined ? {} : { env: options.env }),
    signal: hard,
  });
  await removeStaleScratch();
  const launch = debuggerLaunchOptions({
    debuggerPath: options.debuggerPath ?? choice.debuggerPath,
    debuggerCommandPrefix: options.debuggerCommandPrefix,
    symbolPath: options.symbolPath,
    env: options.env,
  });
  let done = 0;
  /** Analysis time and record per result, told once BullMQ has accepted it ('completed'). */
  const took = new WeakMap<JobResult, { ms: number; record: AnalyzeDumpRecord }>();
  // The Redis client name (CLIENT SETNAME: no spaces) that `getWorkers` lists.
  const workerName = `${choice.engine}-${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${process.pid}`;
  /** Who made a result or a failure: in every result and every failure reason. */
  const by: ResultMaker = {
    worker: workerName,
    version: packageInfo().version,
    engine: choice.engine,
    jobFormat: JOB_FORMAT,
  };

  const analyse = async (data: QueueJobData): Promise<AnalyzeDumpRecord> => {
    let hashed: { sha256: string; size: number; bytes?: Buffer } = {
      sha256: data.sha256,
      size: data.size,
    };
    let downloaded: DownloadedDump | undefined;
    let scratch: string | undefined;
    try {
      let file = data.location;
      if (!isUrlLocation(data.location)) {
        // The content analysed is the content enqueued, or the job fails as CHANGED: a result is
        // kept under the enqueued sha256, so another content's analysis must never be stored there.
        hashed = await hashJobFile(data);
      } else {
        try {
          downloaded = await downloadDump(data.location, hashed, {
            maxBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
            timeoutMs: options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
            signal: hard,
          });
        } catch (error) {
          if (!isHarnessError(error) || error.code !== 'IO') throw error;
          return {
            ...emptyRecord(data.location, hashed, choice.engine),
            error: { code: 'IO', message: error.shortMessage },
          };
        }
        file = downloaded.path;
      }
      const outDir =
        options.outDir ??
        (choice.engine === 'builtin'
          ? ''
          : (scratch = await mkdtemp(join(tmpdir(), `cdbh-raw-${process.pid}-`))));
      const ctx: DumpRunContext = {
        engine: choice.engine,
        steps: data.options.script ?? defaultSteps,
        outDir,
        timeoutMs: data.options.timeoutMs,
        signer: createSigner({
          ...(data.options.skipModules === undefined
            ? {}
            : { skipModules: data.options.skipModules }),
          ...(data.options.signatureLists === undefined
            ? {}
            : { lists: [data.options.signatureLists] }),
        }),
        signal: hard,
        walkStacks: data.options.walkStacks,
        ...launch,
        supplier,
      };
      const record = await analyzeOneDump(file, hashed, ctx).catch((error: unknown) => {
        // No debugger here (removed, not runnable): another worker may have one.
        if (isHarnessError(error) && error.code === 'DEBUGGER_NOT_FOUND') {
          throw workerFault(error.shortMessage, by);
        }
        throw error;
      });
      record.file = data.location;
      record.rawOutputs =
        options.outDir === undefined
          ? []
          : record.rawOutputs.map((o) => ({
              command: o.command,
              path: resolve(options.outDir!, o.path).replace(/\\/g, '/'),
            }));
      const check = validate('analyzeRecord', record);
      if (!check.ok) record.warnings.push(`record schema: ${check.errors.join('; ')}`);
      return record;
    } finally {
      await downloaded?.remove();
      if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
    }
  };

  /** sha256 and size of a path job's file now, checked against the enqueued ones. */
  const hashJobFile = async (data: QueueJobData) => {
    let now: { sha256: string; size: number; bytes?: Buffer };
    try {
      // A small dump is read once, as a local run reads it: hashed, then analysed from the bytes.
      now = await sha256File(data.location, hard, {
        keepUpTo: choice.engine === 'builtin' ? KEEP_DUMP_BYTES : 0,
      });
    } catch (error) {
      // This worker cannot read the file (a share not mounted here, permissions): another may.
      if (isHarnessError(error) && error.code === 'IO') throw workerFault(error.shortMessage, by);
      throw error;
    }
    if (now.sha256 !== data.sha256 || now.size !== data.size) {
      throw changedFault(
        `${data.location} has sha256 ${now.sha256}, size ${now.size}; enqueued as ${data.sha256}, size ${data.size}`,
        by,
      );
    }
    return now;
  };

  const processor = async (job: Job<QueueJobData, JobResult>, token?: string) => {
    const data = job.data;
    const format = (data as { format?: unknown }).format;
    if (format !== JOB_FORMAT) {
      // Not the dump's fault: a worker of the job's format can run it (the collector re-adds it).
      throw workerFault(
        `job ${job.id ?? '?'} has format ${String(format)}; this worker reads ${JOB_FORMAT}`,
        by,
      );
    }
    const started = performance.now();
    emit({
      type: 'job-start',
      jobId: job.id ?? '',
      location: data.location,
      attempt: job.attemptsMade + 1,
    });
    try {
      const { result, record } = packResult(await analyse(data), by);
      took.set(result, { ms: Math.round(performance.now() - started), record });
      return result;
    } catch (error) {
      if (hard.aborted || (isHarnessError(error) && error.code === 'ABORTED')) {
        // Abandoned, not failed: back to waiting for another worker, no attempt spent.
        await job.moveToWait(token);
        emit({ type: 'job-abandoned', jobId: job.id ?? '', location: data.location });
        throw new WaitingError();
      }
      throw error;
    }
  };

  const budget = new SlotBudget(jobs);
  const workerOptions = {
    connection: connectionOptions(options.target),
    autorun: false,
    lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
    stalledInterval:
      options.stalledIntervalMs ?? options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
    // A job whose worker died is taken again once; dying a second time fails it (quarantine).
    maxStalledCount: 1,
    name: workerName,
  };
  const workers = queues.map(
    (queue) => new SlotWorker<QueueJobData, JobResult>(queue, processor, workerOptions, budget),
  );
  let lastRedisMessage = '';
  for (const worker of workers) {
    // "done" only when Redis took the result: a worker whose lock lapsed (event loop blocked past
    // the lock duration) sees its job re-run elsewhere and its own result refused (BullMQ delivers
    // at least once; the collector records each job once either way).
    worker.on('completed', (job, result) => {
      done++;
      const made = took.get(result);
      if (made === undefined) return;
      emit({
        type: 'job-done',
        jobId: job.id ?? '',
        location: job.data.location,
        record: made.record,
        ms: made.ms,
      });
    });
    worker.on('failed', (job, error) => {
      if (job !== undefined && !(error instanceof WaitingError)) {
        emit({
          type: 'job-failed',
          jobId: job.id ?? '',
          location: job.data.location,
          message: error.message,
        });
      }
    });
    worker.on('error', (error) => {
      const message = `queue connection: ${error.message}`;
      if (message !== lastRedisMessage) emit({ type: 'redis', message });
      lastRedisMessage = message;
    });
    worker.on('ready', () => {
      if (lastRedisMessage !== '') emit({ type: 'redis', message: 'queue connection back' });
      lastRedisMessage = '';
    });
  }
  const closeAll = (force: boolean) => Promise.all(workers.map((w) => w.close(force)));
  const stop = () => {
    emit({ type: 'stopping' });
    budget.close();
    void closeAll(false);
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  const onHard = () => {
    budget.close();
    void closeAll(true);
  };
  hard.addEventListener('abort', onHard, { once: true });
  try {
    emit({ type: 'ready', engine: choice, queue: queues[0]!, queues, jobs, redisVersion: version });
    if (options.signal?.aborted !== true) await Promise.all(workers.map((w) => w.run()));
    await closeAll(false);
  } finally {
    options.signal?.removeEventListener('abort', stop);
    hard.removeEventListener('abort', onHard);
    await supplier.close();
  }
  return { done };
}

/**
 * A worker killed mid-dump (kill -9, power loss) cannot remove its temp folders: downloaded dumps
 * (which hold process memory) and debugger scratch. The next worker on the machine removes those
 * whose process is gone: `cdbh-dl-PID-…` and `cdbh-raw-PID-…` in the temp folder.
 */
async function removeStaleScratch(): Promise<void> {
  const root = tmpdir();
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const entry of entries) {
    // Sample: "cdbh-dl-4242-Xa81Qe"
    const pid = Number(/^cdbh-(?:dl|raw)-(\d+)-/.exec(entry)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    await rm(join(root, entry), { recursive: true, force: true }).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}
