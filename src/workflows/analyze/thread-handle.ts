// One analyze thread seen from the batch's thread: the Worker running analyze-thread.ts, the
// dumps it holds (each with its deadline, counted once the thread is ready) and why it ended.
// The batch (analyze-threads.ts) decides what happens to the dumps of a thread that died.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { BytePath } from '../../common/byte-path.js';
import type { InputOutcome } from './input-outcome.js';
import type { DumpAnswer, ThreadReply, ThreadRequest } from './thread-messages.js';

export interface Pending {
  batch: number;
  seq: number;
  path: BytePath;
  resolve: (outcome: InputOutcome) => void;
  reject: (error: unknown) => void;
  /** The same dump on the batch's own thread (once threads were given up). */
  fallback: () => Promise<InputOutcome>;
  /** Told once the thread is done with this dump (answered, or ended holding it). */
  release?: () => void;
  timer?: NodeJS.Timeout;
}

/** Why a thread ended while it held dumps. */
export interface Death {
  code: 'TIMEOUT' | 'INTERNAL';
  message: string;
}

export class AnalyzeThread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  /** Its modules are loaded (its first message): deaths before are start-up failures. */
  ready = false;
  dead = false;
  #error: Death | undefined;
  #deadlineMs = 0;
  onReply: (reply: Exclude<ThreadReply, { type: 'ready' | 'answers' }>) => void = () => undefined;
  onAnswer: (answer: DumpAnswer, pending: Pending | undefined) => void = () => undefined;
  onDeath: (thread: AnalyzeThread, death: Death) => void = () => undefined;

  /** Its heap limits as JSON: an idle thread serves a batch asking for the same. */
  readonly limits: string;

  constructor(limits?: ResourceLimits) {
    this.worker = spawnThread(limits);
    this.limits = JSON.stringify(limits ?? {});
    this.worker.on('message', (reply: ThreadReply) => {
      if (reply.type === 'ready') {
        this.ready = true;
        for (const p of this.pending.values()) this.#arm(p);
        return;
      }
      if (reply.type !== 'answers') {
        this.onReply(reply);
        return;
      }
      let late = false;
      for (const answer of reply.answers) {
        if (answer.type === 'outcome' && this.#deadlineMs > 0 && answer.ms > this.#deadlineMs) {
          // Past the deadline by the thread's own clock: an answer that beat the timer here (this
          // thread busy, or the messages read together) is treated as the timer would have. The
          // dump stays pending, so the thread's end hands it on (analyze-threads.ts); the answers
          // around it are complete and taken.
          late = true;
          continue;
        }
        const p = this.pending.get(answer.seq);
        if (p !== undefined) {
          clearTimeout(p.timer);
          this.pending.delete(answer.seq);
          p.release?.();
        }
        this.onAnswer(answer, p);
      }
      if (late) this.#pastDeadline();
    });
    this.worker.on('error', (error) => {
      this.#error ??= {
        code: 'INTERNAL',
        message: `the analyze thread failed: ${error.message}`,
      };
    });
    this.worker.on('exit', (exitCode) => {
      this.dead = true;
      // Dumps not sent yet are pending like the others: the batch decides what becomes of them.
      clearImmediate(this.#sending);
      this.#outbox = undefined;
      for (const p of this.pending.values()) clearTimeout(p.timer);
      this.onDeath(
        this,
        this.#error ?? {
          code: 'INTERNAL',
          message: `the analyze thread exited (code ${exitCode})`,
        },
      );
    });
  }

  /** Dumps dispatched this turn, sent together (thread-messages.ts says why). */
  #outbox: { batch: number; dumps: { seq: number; path: string | Uint8Array }[] } | undefined;
  #sending: NodeJS.Immediate | undefined;

  /** Any other request goes after the dumps dispatched before it. */
  send(request: ThreadRequest): void {
    this.#flush();
    if (!this.dead) this.worker.postMessage(request);
  }

  dispatch(p: Pending, deadlineMs: number): void {
    this.#deadlineMs = deadlineMs;
    this.pending.set(p.seq, p);
    if (this.ready) this.#arm(p);
    if (this.#outbox !== undefined && this.#outbox.batch !== p.batch) this.#flush();
    this.#outbox ??= { batch: p.batch, dumps: [] };
    this.#outbox.dumps.push({
      seq: p.seq,
      path: typeof p.path === 'string' ? p.path : new Uint8Array(p.path),
    });
    // Once this turn's lanes have all taken their next dump.
    this.#sending ??= setImmediate(() => this.#flush());
  }

  #flush(): void {
    clearImmediate(this.#sending);
    this.#sending = undefined;
    const outbox = this.#outbox;
    this.#outbox = undefined;
    if (outbox === undefined || this.dead) return;
    this.worker.postMessage({ type: 'dumps', ...outbox } satisfies ThreadRequest);
  }

  /** The dump deadline counts from when the thread is ready (not while its modules load). */
  #arm(p: Pending): void {
    if (p.timer !== undefined || this.#deadlineMs <= 0) return;
    p.timer = setTimeout(() => this.#pastDeadline(), this.#deadlineMs);
  }

  #pastDeadline(): void {
    this.#error = {
      code: 'TIMEOUT',
      message: `the analyze thread ran past the ${this.#deadlineMs} ms dump deadline and was stopped`,
    };
    void this.worker.terminate();
  }

  stop(): Promise<number> {
    this.dead = true;
    clearImmediate(this.#sending);
    return this.worker.terminate();
  }
}

/**
 * A thread running analyze-thread.ts: the built .js next to this file, or, running from source
 * through tsx, the .ts with tsx's loader registered in the thread first (a Worker does not get
 * the parent's `--import tsx` in Node 20).
 */
function spawnThread(limits?: ResourceLimits): Worker {
  const here = import.meta.url;
  const options = limits === undefined ? {} : { resourceLimits: limits };
  if (!here.endsWith('.ts')) return new Worker(new URL('./analyze-thread.js', here), options);
  const api = createRequire(here)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const entry = new URL('./analyze-thread.ts', here).href;
  const boot = `import(${JSON.stringify(pathToFileURL(api).href)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
