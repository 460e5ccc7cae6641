// One analyze thread seen from the batch's thread: the Worker running analyze-thread.ts, the
// dumps it holds (each with its deadline, counted once the thread is ready) and why it ended.
// The batch (analyze-threads.ts) decides what happens to the dumps of a thread that died.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { BytePath } from '../../common/byte-path.js';
import type { InputOutcome } from './input-outcome.js';
import type { ThreadReply, ThreadRequest } from './thread-messages.js';

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
  onReply: (reply: ThreadReply, pending?: Pending) => void = () => undefined;
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
      let p: Pending | undefined;
      if (reply.type === 'outcome' && this.#deadlineMs > 0 && reply.ms > this.#deadlineMs) {
        // Past the deadline by the thread's own clock: an answer that beat the timer here (this
        // thread busy, or the messages read together) is treated as the timer would have.
        this.#pastDeadline();
        return;
      }
      if (reply.type === 'outcome' || reply.type === 'stopped' || reply.type === 'fatal') {
        p = this.pending.get(reply.seq);
        if (p !== undefined) {
          clearTimeout(p.timer);
          this.pending.delete(reply.seq);
          p.release?.();
        }
      }
      this.onReply(reply, p);
    });
    this.worker.on('error', (error) => {
      this.#error ??= {
        code: 'INTERNAL',
        message: `the analyze thread failed: ${error.message}`,
      };
    });
    this.worker.on('exit', (exitCode) => {
      this.dead = true;
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

  send(request: ThreadRequest): void {
    if (!this.dead) this.worker.postMessage(request);
  }

  dispatch(p: Pending, deadlineMs: number): void {
    this.#deadlineMs = deadlineMs;
    this.pending.set(p.seq, p);
    if (this.ready) this.#arm(p);
    this.send({
      type: 'dump',
      batch: p.batch,
      seq: p.seq,
      path: typeof p.path === 'string' ? p.path : new Uint8Array(p.path),
    });
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
