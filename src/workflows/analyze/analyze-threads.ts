// Analyze threads: `--engine builtin` batches spread over worker_threads so they use every core
// (https://nodejs.org/api/worker_threads.html). The batch's own thread keeps the scan, the
// records file, progress and the summary, and analyses dumps too; each analyze thread takes
// dumps by path and hands back their records.ndjson lines (analyze-thread.ts). Threads outlive a
// batch (idle, unref'd, let go after IDLE_MS) so the next batch of a library user finds their
// modules loaded and their code compiled.
//
// A thread that dies (an uncaught error, out of memory under `resourceLimits`, or stopped for
// running past the dump deadline) never loses or blames a dump: the dumps it held are run again
// one at a time on a thread of their own; a dump its thread dies on when alone twice is
// quarantined (analyze-one.ts's rule for debuggers), the others get their records. Threads that
// die before their first dump three times in a batch are given up: the batch goes on in-process.
import type { ResourceLimits } from 'node:worker_threads';
import { AbortedError, HarnessError, type ErrorJSON } from '../../errors.js';
import type { BytePath } from '../../common/byte-path.js';
import type { AnalyzeDumpRecord } from '../../report/analyze/analyze-record.js';
import { emptyRecord } from './analyze-one.js';
import { sha256File } from './file-hash.js';
import type { InputOutcome } from './input-outcome.js';
import type { DumpAnswer, ThreadBatchConfig } from './thread-messages.js';
import { AnalyzeThread, type Death, type Pending } from './thread-handle.js';

/** Idle threads are let go after this long without a batch. */
const IDLE_MS = 10_000;
/** After abort or at the end of a batch, a thread that does not answer within this is stopped. */
const SETTLE_MS = 5_000;
/** Threads dying before their first dump this many times in a batch: threads are given up. */
const START_DEATHS = 3;
/** A dump its thread dies on, alone, this many times is quarantined. */
const DEATHS_BEFORE_QUARANTINE = 2;

/** The main thread's side of a batch spread over threads. */
export class ThreadBatch {
  readonly #pool: ThreadPool;
  readonly #id: number;
  readonly #config: ThreadBatchConfig;
  readonly #limits: ResourceLimits | undefined;
  readonly #lanes: AnalyzeThread[];
  readonly #deaths = new Map<string, number>();
  #solo: AnalyzeThread | undefined;
  #soloChain: Promise<void> = Promise.resolve();
  #startDeaths = 0;
  #aborted = false;
  /** Set when threads were given up: the reason, said once by the caller. */
  givenUp: string | undefined;

  constructor(
    pool: ThreadPool,
    id: number,
    config: ThreadBatchConfig,
    threads: AnalyzeThread[],
    readonly events: {
      onServerDown?: (server: string, reason: string) => void;
      limits?: ResourceLimits;
    } = {},
  ) {
    this.#pool = pool;
    this.#id = id;
    this.#config = config;
    this.#limits = events.limits;
    this.#lanes = threads;
    for (const thread of threads) this.#adopt(thread);
  }

  get threads(): number {
    return this.#lanes.length;
  }

  /**
   * One dump on lane `lane`'s thread; resolves with its outcome (a quarantine record when it
   * killed its thread), rejects with AbortedError or the batch's fatal error. `fallback` runs the
   * dump on this thread once threads were given up.
   */
  run(path: BytePath, lane: number, fallback: () => Promise<InputOutcome>): Promise<InputOutcome> {
    if (this.givenUp !== undefined) return fallback();
    if (this.#aborted) return Promise.reject(new AbortedError('analysis interrupted'));
    return this.#send(this.#lane(lane), path, fallback);
  }

  /** Lane `lane`'s thread, a fresh one in place of a dead one. */
  #lane(lane: number): AnalyzeThread {
    const at = lane % this.#lanes.length;
    const thread = this.#lanes[at]!;
    if (!thread.dead) return thread;
    const fresh = new AnalyzeThread(this.#limits);
    this.#adopt(fresh);
    this.#lanes[at] = fresh;
    return fresh;
  }

  #send(
    thread: AnalyzeThread,
    path: BytePath,
    fallback: () => Promise<InputOutcome>,
  ): Promise<InputOutcome> {
    return new Promise((resolve, reject) => {
      thread.dispatch(
        { batch: this.#id, seq: nextSeq++, path, resolve, reject, fallback },
        this.#config.deadlineMs,
      );
    });
  }

  #adopt(thread: AnalyzeThread): void {
    thread.worker.ref();
    thread.send({ type: 'batch', batch: this.#id, config: this.#config });
    // Locals, then stored (eslint.config.js, noFunctionLiteralIntoProperty).
    const onReply: AnalyzeThread['onReply'] = (reply) => {
      if (reply.type === 'server-down') this.events.onServerDown?.(reply.server, reply.reason);
    };
    const onAnswer: AnalyzeThread['onAnswer'] = (answer, p) => this.#onAnswer(answer, p);
    const onDeath: AnalyzeThread['onDeath'] = (dead, death) => this.#onDeath(dead, death);
    thread.onReply = onReply;
    thread.onAnswer = onAnswer;
    thread.onDeath = onDeath;
  }

  #onAnswer(answer: DumpAnswer, p: Pending | undefined): void {
    if (p === undefined) return;
    if (answer.type === 'stopped') p.reject(new AbortedError('analysis interrupted'));
    else if (answer.type === 'fatal') p.reject(fromErrorJson(answer.error));
    else if (!('json' in answer)) p.resolve({ status: answer.status });
    else p.resolve(threadOutcome(answer.status, answer.json, answer.analyzed));
  }

  #onDeath(thread: AnalyzeThread, death: Death): void {
    const held = [...thread.pending.values()];
    thread.pending.clear();
    // After the decisions below are queued: a retry on the solo thread waits its turn.
    queueMicrotask(() => {
      for (const p of held) p.release?.();
    });
    if (this.#aborted) {
      for (const p of held) p.reject(new AbortedError('analysis interrupted'));
      return;
    }
    const lane = this.#lanes.indexOf(thread);
    if (!thread.ready) {
      // It never started: not its dumps' fault. They go again; after START_DEATHS such deaths
      // threads are given up and this thread analyses the rest.
      this.#startDeaths++;
      if (this.#startDeaths >= START_DEATHS) {
        this.givenUp ??= `analyze threads stopped before their first dump ${this.#startDeaths} times (${death.message}); the batch goes on in one thread`;
      }
      for (const p of held) {
        const again =
          this.givenUp !== undefined
            ? p.fallback()
            : lane >= 0
              ? this.#send(this.#lane(lane), p.path, p.fallback)
              : this.#alone(p.path, p.fallback);
        again.then(p.resolve, p.reject);
      }
      return;
    }
    for (const p of held) {
      const alone = held.length === 1;
      const deaths = (this.#deaths.get(key(p.path)) ?? 0) + (alone ? 1 : 0);
      this.#deaths.set(key(p.path), deaths);
      if (deaths >= DEATHS_BEFORE_QUARANTINE) {
        quarantined(p.path, death, deaths).then(p.resolve, p.reject);
      } else {
        // Not known to be this dump's fault yet: again, alone, so the next death is its own.
        this.#alone(p.path, p.fallback).then(p.resolve, p.reject);
      }
    }
  }

  /**
   * `path` on the solo thread, which holds one dump at a time: the next waits until the thread
   * is done with this one (answered or ended), not for its final outcome, which may be a retry
   * queued behind it.
   */
  #alone(path: BytePath, fallback: () => Promise<InputOutcome>): Promise<InputOutcome> {
    return new Promise((resolve, reject) => {
      this.#soloChain = this.#soloChain.then(
        () =>
          new Promise<void>((release) => {
            if (this.#aborted) {
              reject(new AbortedError('analysis interrupted'));
              release();
            } else if (this.givenUp !== undefined) {
              fallback().then(resolve, reject);
              release();
            } else {
              if (this.#solo === undefined || this.#solo.dead) {
                this.#solo = new AnalyzeThread(this.#limits);
                this.#adopt(this.#solo);
              }
              this.#solo.dispatch(
                { batch: this.#id, seq: nextSeq++, path, resolve, reject, fallback, release },
                this.#config.deadlineMs,
              );
            }
          }),
      );
    });
  }

  /** Ctrl-C: threads drop what they hold (complete records already sent are still written). */
  abort(): void {
    this.#aborted = true;
    for (const thread of this.#all()) thread.send({ type: 'abort', batch: this.#id });
  }

  /** Closes every thread's supplier; threads that answer go back to the pool idle. */
  async end(): Promise<void> {
    const live = this.#all().filter((t) => !t.dead);
    const ended = await Promise.all(
      live.map((thread) => this.#pool.settle(thread, this.#id, SETTLE_MS)),
    );
    this.#pool.release(live.filter((_, i) => ended[i] === true));
  }

  #all(): AnalyzeThread[] {
    return this.#solo === undefined ? [...this.#lanes] : [...this.#lanes, this.#solo];
  }
}

/** The process's threads: idle ones wait for the next batch, then are let go. */
export class ThreadPool {
  #idle: AnalyzeThread[] = [];
  #timer: NodeJS.Timeout | undefined;
  #batches = 0;

  /** `threads` threads for a batch (idle ones first), each told the batch's options. */
  startBatch(
    config: ThreadBatchConfig,
    threads: number,
    events: ThreadBatch['events'] = {},
  ): ThreadBatch {
    clearTimeout(this.#timer);
    // An idle thread is taken only with the same heap limits (a Worker's are fixed at its start).
    const limits = JSON.stringify(events.limits ?? {});
    const taken: AnalyzeThread[] = [];
    for (const thread of [...this.#idle]) {
      if (taken.length < threads && thread.limits === limits) {
        taken.push(thread);
        this.#idle.splice(this.#idle.indexOf(thread), 1);
      }
    }
    while (taken.length < threads) taken.push(new AnalyzeThread(events.limits));
    return new ThreadBatch(this, ++this.#batches, config, taken, events);
  }

  /** Asks `thread` to close batch `id`'s supplier; true when it did within `ms`. */
  settle(thread: AnalyzeThread, id: number, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        void thread.stop().then(() => resolve(false));
      }, ms);
      const onDeath = () => {
        clearTimeout(timer);
        resolve(false);
      };
      const onReply: AnalyzeThread['onReply'] = (reply) => {
        if (reply.type === 'ended' && reply.batch === id) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      thread.onDeath = onDeath;
      thread.onReply = onReply;
      thread.send({ type: 'end', batch: id });
    });
  }

  release(threads: AnalyzeThread[]): void {
    for (const thread of threads) {
      thread.worker.unref();
      const ignore = () => undefined;
      const onDeath = (dead: AnalyzeThread) => {
        this.#idle = this.#idle.filter((t) => t !== dead);
      };
      thread.onReply = ignore;
      thread.onAnswer = ignore;
      thread.onDeath = onDeath;
      this.#idle.push(thread);
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.close(), IDLE_MS);
    this.#timer.unref();
  }

  /** Lets every idle thread go (tests; the idle timer does it otherwise). */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    const idle = this.#idle;
    this.#idle = [];
    await Promise.all(idle.map((thread) => thread.stop()));
  }
}

let shared: ThreadPool | undefined;
/** Dump numbers unique in the process: a late reply of an ended batch matches nothing. */
let nextSeq = 0;

/** The process's pool of analyze threads. */
export function analyzeThreadPool(): ThreadPool {
  shared ??= new ThreadPool();
  return shared;
}

function key(path: BytePath): string {
  return typeof path === 'string' ? path : `bytes:${path.toString('base64')}`;
}

/** A thread's outcome; the record is parsed from its line only if someone reads it. */
function threadOutcome(status: InputOutcome['status'], json: string, analyzed: boolean) {
  return new ThreadOutcome(status, json, analyzed) as InputOutcome;
}

/**
 * A class for its lazy getter: an object literal's getter is a closure V8 keeps through every
 * scavenge until a full GC, with the record's text it closes over (image-locator.ts,
 * DumpImageSet, says how that was measured).
 */
class ThreadOutcome {
  #record: AnalyzeDumpRecord | undefined;

  constructor(
    readonly status: InputOutcome['status'],
    readonly json: string,
    readonly analyzed: boolean,
  ) {}

  get record(): AnalyzeDumpRecord {
    this.#record ??= JSON.parse(this.json) as AnalyzeDumpRecord;
    return this.#record;
  }
}

/** The record of a dump its thread died on, alone, `deaths` times. */
async function quarantined(path: BytePath, death: Death, deaths: number): Promise<InputOutcome> {
  const hashed = await sha256File(path).catch(() => ({ sha256: '0'.repeat(64), size: 0 }));
  const record: AnalyzeDumpRecord = {
    ...emptyRecord(path, hashed, 'builtin'),
    attempts: deaths,
    quarantined: true,
    error: {
      code: death.code,
      message: `quarantined: the analyze thread ended ${deaths} times on this dump. ${death.message}`,
    },
  };
  return { status: 'quarantined', record, json: undefined, analyzed: true };
}

function fromErrorJson(error: ErrorJSON): HarnessError {
  return new HarnessError(error.code, error.message);
}
