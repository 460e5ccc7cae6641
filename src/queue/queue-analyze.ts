// `analyze PATH… --queue redis://…`: the producer and collector of a queued analyze run. Inputs
// are hashed and enqueued (one job per distinct content and options), and results are collected as
// workers finish them into exactly the outputs of a local run: records.ndjson appended as they
// come, then summary.json and report.html, with the same progress events. The out folder is the
// collector's only state: stopped and started again with --resume, it skips the inputs already
// recorded and finds the others' results waiting in Redis. `watchFolder` keeps scanning the PATH
// folders for new dumps until the signal stops it (upload folders).
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { stat } from 'node:fs/promises';
import { AbortedError, UsageError } from '../errors.js';
import type { AnalyzeDumpRecord, AnalyzeEngineName } from '../report/analyze/analyze-record.js';
import { readRecords, RecordAppender } from '../report/analyze/records-file.js';
import type { ListEdits } from '../report/analyze/signature-lists.js';
import { createSigner } from '../report/analyze/signature.js';
import {
  DEFAULT_TIMEOUT_MS,
  type AnalyzeEvent,
  type AnalyzeResult,
} from '../workflows/analyze/analyze.js';
import { resumeKey } from '../workflows/analyze/file-hash.js';
import { expandInputs } from '../workflows/analyze/inputs.js';
import { pathText } from '../common/byte-path.js';
import { outputFiles, writeSummaryAndReport } from '../workflows/analyze/outputs.js';
import { OutDirLock } from '../workflows/analyze/out-dir.js';
import { boundRecordJson } from '../workflows/analyze/record-bounds.js';
import { loadTriageScript } from '../workflows/analyze/triage-script.js';
import { Collector } from './collector.js';
import { FolderWatch } from './folder-watch.js';
import { JobFeeder } from './job-feeder.js';
import {
  engineQueueName,
  isUrlLocation,
  TRIAGE_ENGINES,
  type JobAnalysisOptions,
} from './queue-job.js';
import { connectionOptions, probeRedis, type RedisTarget } from './redis-url.js';
import { DEFAULT_DOWNLOAD_TIMEOUT_MS, DEFAULT_MAX_DOWNLOAD_BYTES } from './url-dump.js';
import { WorkerPresence } from './worker-presence.js';

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

/** The longest a collector goes without asking Redis about every job it waits for. */
const SWEEP_MS = 30_000;

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
  let finished = 0;
  let analyzed = 0;
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
      total: feeder.total,
      ...(status === undefined ? { record } : {}),
    });
  };
  const collector: Collector = new Collector(queue, redis, {
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
    changed: (changedFiles, data, reason): Promise<void> =>
      feeder.rehash(changedFiles, data, reason),
  });
  const feeder: JobFeeder = new JobFeeder({
    queue,
    collector,
    jobOptions,
    ownEngine,
    recorded,
    fresh: options.fresh,
    limits: {
      maxBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
      timeoutMs: options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
      signal,
    },
    write,
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
  const newFiles = async (): Promise<string[]> => {
    const { ready, retaken } = await watch.scan((await scan()).files);
    for (const file of retaken) collector.forget(file);
    return ready;
  };

  const presence = new WorkerPresence(
    queue,
    { queueName, givenName: options.queueName, display: options.target.display, engines },
    (message) => emit({ type: 'queue', message }),
  );

  emit({ type: 'start', total: first.files.length + urls.length, outDir: options.outDir });
  let interrupted = false;
  try {
    await events.waitUntilReady();
    if (options.watchFolder === true) await watch.taken(first.files);
    await feeder.enqueue([...first.files, ...urls]);
    let lastSweep = performance.now();
    while (!signal.aborted && (collector.pending.size > 0 || options.watchFolder === true)) {
      await pollWait(pollMs, signal, (done) => (wake = done));
      if (signal.aborted) break;
      try {
        if (options.watchFolder === true) {
          const fresh = await newFiles();
          if (fresh.length > 0) await feeder.enqueue(fresh);
        }
        // Results flowing through events need no sweep; one is made when they stop (a restarted
        // collector or Redis, trimmed events, lost jobs), after Redis trouble, and every 30 s.
        if (arrived === 0 || redisTrouble !== '' || performance.now() - lastSweep >= SWEEP_MS) {
          await collector.sweep();
          lastSweep = performance.now();
        }
        arrived = 0;
        await presence.check(collector.pending.size);
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
    skipped: { resumed: feeder.resumed, otherShard: 0 },
    interrupted,
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * Waits `ms`, or less when the signal aborts or the collector calls the wake function it is
 * given (the last awaited result arrived); the timer and the listener are gone when it resolves.
 */
function pollWait(ms: number, signal: AbortSignal, setWake: (wake: () => void) => void) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    setWake(done);
    signal.addEventListener('abort', done, { once: true });
  });
}
