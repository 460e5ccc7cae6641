// `analyze PATH… --queue redis://…`: the producer and collector of a queued analyze run. Inputs
// are hashed and enqueued (one job per distinct content and options), and results are collected as
// workers finish them into exactly the outputs of a local run: records.ndjson appended as they
// come, then summary.json and report.html, with the same progress events. The out folder is the
// collector's only state: stopped and started again with --resume, it skips the inputs already
// recorded and finds the others' results waiting in Redis. `watchFolder` keeps scanning the PATH
// folders for new dumps until the signal stops it (upload folders).
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { AbortedError, isHarnessError, UsageError } from '../errors.js';
import type { AnalyzeDumpRecord, AnalyzeEngineName } from '../report/analyze/analyze-record.js';
import { readRecords, RecordAppender } from '../report/analyze/records-file.js';
import type { ListEdits } from '../report/analyze/signature-lists.js';
import { createSigner } from '../report/analyze/signature.js';
import {
  DEFAULT_TIMEOUT_MS,
  type AnalyzeEvent,
  type AnalyzeResult,
} from '../workflows/analyze/analyze.js';
import { emptyRecord } from '../workflows/analyze/analyze-one.js';
import { resumeKey } from '../workflows/analyze/file-hash.js';
import { expandInputs } from '../workflows/analyze/inputs.js';
import { pathText } from '../common/byte-path.js';
import { outputFiles, writeSummaryAndReport } from '../workflows/analyze/outputs.js';
import { OutDirLock } from '../workflows/analyze/out-dir.js';
import { boundRecordJson } from '../workflows/analyze/record-bounds.js';
import { loadTriageScript } from '../workflows/analyze/triage-script.js';
import { Collector } from './collector.js';
import { FolderWatch } from './folder-watch.js';
import { dropFinished, enqueueJobs, hashInput, jobDataOf } from './producer.js';
import {
  engineQueueName,
  isUrlLocation,
  TRIAGE_ENGINES,
  jobIdOf,
  type JobAnalysisOptions,
  type QueueJobData,
} from './queue-job.js';
import { connectionOptions, probeRedis, type RedisTarget } from './redis-url.js';
import { DEFAULT_DOWNLOAD_TIMEOUT_MS, DEFAULT_MAX_DOWNLOAD_BYTES } from './url-dump.js';

export interface QueueAnalyzeOptions {
  inputs: readonly string[];
  outDir: string;
  target: RedisTarget;
  queueName: string;
  /** The engines that may analyse the dumps (engineSet): one, several, or every triage engine. */
  engines: readonly AnalyzeEngineName[];
  scriptPath?: string;
  timeoutMs?: number;
  walkStacks?: boolean;
  skipModules?: readonly string[];
  signatureLists?: ListEdits;
  resume?: boolean;
  extensions?: readonly string[];
  cwd?: string;
  /** Keep scanning the PATH folders for new dumps until `signal` aborts. */
  watchFolder?: boolean;
  /** Folder scans, sweeps of Redis and the worker check, this often (default 2 s). */
  pollMs?: number;
  maxDownloadBytes?: number;
  downloadTimeoutMs?: number;
  /**
   * `--reanalyze` ('all'): results already in Redis are dropped and every dump analysed again;
   * `--retry-failed` ('failed'): only failed jobs and results that are not ok.
   */
  fresh?: 'all' | 'failed';
  signal?: AbortSignal;
  onEvent?: (event: AnalyzeEvent) => void;
}

/** Hashing reads files (or URLs) several at a time: I/O bound, not CPU bound. */
const HASH_PARALLEL = 8;
/** Jobs go to Redis in groups of about this many while the inputs are being hashed. */
const ADD_EVERY = 64;
/** The longest a collector goes without asking Redis about every job it waits for. */
const SWEEP_MS = 30_000;
/** Times a file found changed under a worker is hashed and enqueued again. */
const CHANGED_TRIES = 2;

export async function analyzeThroughQueue(options: QueueAnalyzeOptions): Promise<AnalyzeResult> {
  const out = new OutDirLock(options.outDir);
  try {
    return await collectLocked(options, out);
  } finally {
    await out.release();
  }
}

async function collectLocked(
  options: QueueAnalyzeOptions,
  out: OutDirLock,
): Promise<AnalyzeResult> {
  const started = performance.now();
  const emit = (event: AnalyzeEvent) => options.onEvent?.(event);
  const signal = options.signal ?? new AbortController().signal;
  const pollMs = options.pollMs ?? 2_000;
  const engines = TRIAGE_ENGINES.filter((e) => options.engines.includes(e));
  if (engines.length === 0) throw new UsageError('--queue needs at least one triage engine');
  const anyEngine = engines.length === TRIAGE_ENGINES.length;
  if (options.scriptPath !== undefined && engines.length > 1) {
    throw new UsageError(
      `--script is one debugger's commands: give it with one --engine, not ${engines.join(', ')}`,
    );
  }
  /** Records the producer or collector writes itself (unreadable inputs, resume skips). */
  const [ownEngine] = engines as [AnalyzeEngineName, ...AnalyzeEngineName[]];
  const jobOptions: JobAnalysisOptions = {
    engines,
    timeoutMs: Math.round(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    walkStacks: options.walkStacks ?? true,
    ...(options.skipModules === undefined ? {} : { skipModules: [...options.skipModules] }),
    ...(options.signatureLists === undefined ? {} : { signatureLists: options.signatureLists }),
    ...(options.scriptPath === undefined ? {} : { script: loadTriageScript(options.scriptPath) }),
  };
  const urls = options.inputs.filter(isUrlLocation);
  const paths = options.inputs.filter((p) => !isUrlLocation(p));
  // Jobs carry paths as JSON text to workers that may be elsewhere: a name that is not valid
  // UTF-8 goes as its text (U+FFFD for the bad bytes) and fails there with the reason. A run
  // without --queue carries such names as bytes (common/byte-path.ts).
  const scan = async () =>
    paths.length === 0
      ? { files: [], unmatched: [] }
      : expandInputs(paths, options.cwd, options.extensions).then((found) => ({
          ...found,
          files: found.files.map(pathText),
        }));
  const first = await scan();
  for (const input of first.unmatched)
    if (options.watchFolder !== true) emit({ type: 'unmatched', input });
  if (first.files.length + urls.length === 0 && options.watchFolder !== true) {
    throw new UsageError(
      `no dump files found in ${options.inputs.map((p) => `"${p}"`).join(', ') || '(no paths given)'}`,
    );
  }
  const { version } = await probeRedis(options.target);
  const queueName = engineQueueName(options.queueName, engines);
  const where = `queue "${queueName}" at ${options.target.display} (Redis ${version})`;
  if (engines.length === 1) emit({ type: 'engine', choice: { engine: ownEngine, reason: where } });
  else
    emit({
      type: 'queue',
      message: `${where}: ${anyEngine ? 'any engine' : 'engines'} (${engines.join(', ')}); each record names the engine that analysed it`,
    });

  const files = outputFiles(options.outDir);
  await out.take();
  const existing = await stat(files.records).catch(() => undefined);
  if (existing !== undefined && existing.size > 0 && options.resume !== true) {
    throw new UsageError(
      `${files.records} already has records: add --resume to continue that collection, or pick another --out`,
    );
  }
  const recorded = new Set<string>();
  if (options.resume === true)
    for await (const r of readRecords(files.records)) recorded.add(resumeKey(r));

  const connection = connectionOptions(options.target);
  const queue = new Queue(queueName, { connection });
  const events = new QueueEvents(queueName, { connection });
  const redis = new Redis(connection);
  let redisTrouble = '';
  const onRedisError = (error: Error) => {
    const message = `Redis connection: ${error.message}; retrying`;
    if (message !== redisTrouble) emit({ type: 'queue', message });
    redisTrouble = message;
  };
  queue.on('error', onRedisError);
  events.on('error', onRedisError);
  redis.on('error', onRedisError);
  const appender = await RecordAppender.open(files.records);
  const signer = createSigner({
    ...(options.skipModules === undefined ? {} : { skipModules: options.skipModules }),
    ...(options.signatureLists === undefined ? {} : { lists: [options.signatureLists] }),
  });
  let algorithm = signer.algorithm;
  let total = 0;
  let finished = 0;
  let analyzed = 0;
  let resumed = 0;
  const write = async (given: AnalyzeDumpRecord, status?: 'skipped-resume') => {
    let record = given;
    if (status === undefined) {
      // Bounded again here, whatever the worker did (an older or a broken worker's result).
      const bounded = boundRecordJson(given);
      record = bounded.record;
      await appender.append(record, bounded.json);
      analyzed++;
      if (record.bucket !== null) algorithm = record.bucket.algorithm;
    }
    emit({
      type: 'dump',
      file: record.file,
      status: status ?? (record.ok ? 'ok' : record.quarantined === true ? 'quarantined' : 'failed'),
      done: ++finished,
      total,
      ...(status === undefined ? { record } : {}),
    });
  };
  const collector = new Collector(queue, redis, {
    write: (record) => write(record),
    onRequeued: (count) =>
      emit({
        type: 'queue',
        message: `${count} jobs had vanished from Redis and were enqueued again`,
      }),
    onRetry: (jobId, kind, reason) =>
      emit({
        type: 'queue',
        message: `job ${jobId} back to the queue (${kind === 'killed' ? 'its workers died' : "not the dump's fault"}): ${reason}`,
      }),
    changed: (changedFiles, data, reason) => rehash(changedFiles, data, reason),
  });
  let wake: () => void = () => undefined;
  /** Results that came through events since the last poll tick. */
  let arrived = 0;
  // The poll loop is woken only for the last result (to end at once), not per result: its sweep
  // asks Redis about every job still awaited, which per result would cost O(jobs²) round trips.
  const settled = (work: Promise<void>) =>
    void work.catch(onRedisError).finally(() => {
      arrived++;
      if (collector.pending.size === 0) wake();
    });
  events.on('completed', ({ jobId, returnvalue }) => {
    const result = returnvalue as unknown;
    settled(
      typeof result === 'object' && result !== null
        ? collector.completed(jobId, result)
        : collector.settle(jobId),
    );
  });
  events.on('failed', ({ jobId }) => settled(collector.settle(jobId)));

  const watch = new FolderWatch();
  /** Job ids whose earlier results --reanalyze / --retry-failed already dropped this run. */
  const dropped = new Set<string>();
  const add = async (jobs: Map<string, QueueJobData>) => {
    if (options.fresh !== undefined) {
      const ids = [...jobs.keys()].filter((id) => !dropped.has(id));
      for (const id of ids) dropped.add(id);
      await dropFinished(queue, ids, options.fresh);
    }
    await enqueueJobs(queue, jobs);
  };
  const enqueue = async (inputs: readonly string[], again = false) => {
    if (!again) total += inputs.length;
    const jobs = new Map<string, QueueJobData>();
    for (let at = 0; at < inputs.length; at += HASH_PARALLEL) {
      // Added as they are hashed, not after the last: workers start while the rest is read.
      if (jobs.size >= ADD_EVERY) {
        await add(jobs);
        jobs.clear();
      }
      const batch = inputs.slice(at, at + HASH_PARALLEL);
      const hashed = await Promise.all(
        batch.map((file) =>
          hashInput(file, {
            maxBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
            timeoutMs: options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
            signal,
          }).catch((error: unknown) => error),
        ),
      );
      for (const [i, result] of hashed.entries()) {
        const file = batch[i]!;
        if (!('sha256' in (result as object))) {
          if (signal.aborted || (isHarnessError(result) && result.code === 'ABORTED'))
            throw new AbortedError('enqueue interrupted');
          await write(unreadable(file, result, ownEngine));
          continue;
        }
        const input = result as { file: string; sha256: string; size: number };
        if (recorded.has(resumeKey(input))) {
          resumed++;
          await write({ ...emptyRecord(file, input, ownEngine) }, 'skipped-resume');
          continue;
        }
        const data = jobDataOf(input, jobOptions);
        const id = jobIdOf(input.sha256, jobOptions);
        if (collector.expect(id, data, file)) jobs.set(id, data);
      }
    }
    await add(jobs);
    // Jobs that were already finished in Redis (an earlier run, a copy) send no new event; a
    // re-hash (`again`, called from a sweep) leaves them to the next sweep.
    if (!again) await collector.sweep();
  };
  /** How often each file was found changed under a worker (see rehash). */
  const changes = new Map<string, number>();
  /**
   * Files whose content changed between enqueue and analysis: hashed again and enqueued as what
   * they hold now, as a local run analyses what a file holds when it reads it. A file that keeps
   * changing gets a CHANGED record after CHANGED_TRIES.
   */
  const rehash = async (changedFiles: readonly string[], data: QueueJobData, reason: string) => {
    const again: string[] = [];
    for (const file of changedFiles) {
      const times = (changes.get(file) ?? 0) + 1;
      changes.set(file, times);
      if (times <= CHANGED_TRIES) {
        again.push(file);
        continue;
      }
      const record = emptyRecord(file, { sha256: data.sha256, size: data.size }, ownEngine);
      await write({
        ...record,
        error: { code: 'CHANGED', message: `changed ${times} times while queued: ${reason}` },
      });
    }
    if (again.length > 0) await enqueue(again, true);
  };
  const newFiles = async (): Promise<string[]> => {
    const { ready, retaken } = await watch.scan((await scan()).files);
    for (const file of retaken) collector.forget(file);
    return ready;
  };

  let workersSaid: boolean | undefined;
  const checkWorkers = async () => {
    if (collector.pending.size === 0) return;
    const count = await queue.getWorkersCount();
    const none = count === 0;
    if (none !== workersSaid) {
      const what = engines.length === 1 ? ownEngine : anyEngine ? 'any-engine' : engines.join('/');
      emit({
        type: 'queue',
        message: none
          ? `no worker is taking ${what} jobs from queue "${queueName}": ${collector.pending.size} dump${collector.pending.size === 1 ? '' : 's'} waiting (start one: cdb-harness worker --queue ${options.target.display} --engine ${engines.join('|')}${options.queueName === 'cdb-harness' ? '' : ` --queue-name ${options.queueName}`})`
          : `${count} worker${count === 1 ? '' : 's'} on queue "${queueName}"`,
      });
    }
    workersSaid = none;
  };

  emit({ type: 'start', total: first.files.length + urls.length, outDir: options.outDir });
  let interrupted = false;
  try {
    await events.waitUntilReady();
    if (options.watchFolder === true) await watch.taken(first.files);
    await enqueue([...first.files, ...urls]);
    let lastSweep = performance.now();
    while (!signal.aborted && (collector.pending.size > 0 || options.watchFolder === true)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, pollMs);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
      if (signal.aborted) break;
      try {
        if (options.watchFolder === true) {
          const fresh = await newFiles();
          if (fresh.length > 0) await enqueue(fresh);
        }
        // Results flowing through events need no sweep; one is made when they stop (a restarted
        // collector or Redis, trimmed events, lost jobs), after Redis trouble, and every 30 s.
        if (arrived === 0 || redisTrouble !== '' || performance.now() - lastSweep >= SWEEP_MS) {
          await collector.sweep();
          lastSweep = performance.now();
        }
        arrived = 0;
        await checkWorkers();
        if (redisTrouble !== '') emit({ type: 'queue', message: 'Redis connection back' });
        redisTrouble = '';
      } catch (error) {
        if (error instanceof AbortedError) break;
        onRedisError(error instanceof Error ? error : new Error(String(error)));
      }
    }
    interrupted = collector.pending.size > 0;
  } finally {
    await appender.close();
    await Promise.allSettled([events.close(), queue.close()]);
    redis.disconnect();
  }
  const summary = await writeSummaryAndReport(options.outDir, algorithm, {
    interrupted,
    options: {
      command: 'analyze',
      inputs: [...options.inputs],
      ...(engines.length === 1 ? { engineRequested: ownEngine, engine: ownEngine } : {}),
      ...(options.scriptPath === undefined ? {} : { script: options.scriptPath }),
      ...(engines.length === 1 && ownEngine === 'builtin'
        ? {}
        : { timeoutMs: jobOptions.timeoutMs }),
      resume: options.resume === true,
      ...(options.skipModules === undefined ? {} : { skipModules: [...options.skipModules] }),
      ...(options.signatureLists === undefined ? {} : { signatureLists: options.signatureLists }),
      queue: {
        url: options.target.display,
        name: options.queueName,
        waiting: collector.pending.size,
        engines: [...engines],
      },
    },
  });
  emit({ type: 'finish', summary });
  return {
    summary,
    files,
    engine: {
      engine: ownEngine,
      reason: engines.length === 1 ? 'queue' : `queue: any of ${engines.join(', ')}`,
    },
    analyzed,
    skipped: { resumed, otherShard: 0 },
    interrupted,
    durationMs: Math.round(performance.now() - started),
  };
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
