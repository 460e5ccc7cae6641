// The body of an analyze thread (a worker_threads Worker started by analyze-threads.ts): dumps of
// a `--engine builtin` batch come in by path, their records.ndjson lines go back. The thread
// builds its own supplier and signer from the batch's options (nothing with a function in it
// crosses threads), runs the same per-input steps as the batch's own thread (input-outcome.ts)
// and closes the supplier when the batch ends; the isolate stays for the next batch of the
// process (its modules loaded, its code compiled) until the pool lets it go.
import { parentPort } from 'node:worker_threads';
import { AbortedError, errorToJSON, isHarnessError } from '../../errors.js';
import type { SymbolSupplier } from '../../symbols/supplier/symbol-supplier.js';
import type { DumpRunContext } from './analyze-one.js';
import { dumpSigner } from './dump-bucket.js';
import { analyzeInput, type InputRunContext } from './input-outcome.js';
import { builtinSupplier } from './symbols-setup.js';
import type {
  DumpAnswer,
  ThreadBatchConfig,
  ThreadReply,
  ThreadRequest,
} from './thread-messages.js';

interface Batch {
  stop: AbortController;
  ready: Promise<{ ctx: InputRunContext; supplier: SymbolSupplier }>;
}

const port = parentPort;
const batches = new Map<number, Batch>();

/**
 * Answers not sent yet. They leave FLUSH_AT at a time, or when this thread runs out of dumps, or
 * FLUSH_MS after the first of them: each message wakes the batch's thread, which on a busy
 * machine takes the core from this one there and then.
 */
let answers: DumpAnswer[] = [];
let flushTimer: NodeJS.Timeout | undefined;
/** Half the dumps the batch's thread keeps here (thread-config.ts): the rest go on meanwhile. */
const FLUSH_AT = 4;
/** An answer waits at most this long (progress, and the dump deadline counted on the other side). */
const FLUSH_MS = 20;

function flush(): void {
  clearTimeout(flushTimer);
  flushTimer = undefined;
  if (answers.length === 0) return;
  port?.postMessage({ type: 'answers', answers } satisfies ThreadReply);
  answers = [];
}

function answer(message: DumpAnswer): void {
  answers.push(message);
  if (answers.length >= FLUSH_AT) flush();
  else flushTimer ??= setTimeout(flush, FLUSH_MS);
}

/** Anything else goes after the answers before it, so `ended` follows its batch's last answer. */
function reply(message: ThreadReply): void {
  flush();
  port?.postMessage(message);
}

function startBatch(id: number, config: ThreadBatchConfig): void {
  const stop = new AbortController();
  const ready = (async () => {
    const supplier = await builtinSupplier({
      ...config.symbols,
      signal: stop.signal,
      onSymbolServerDown: (server, reason) =>
        reply({ type: 'server-down', batch: id, server, reason }),
    });
    const dump: DumpRunContext = {
      engine: 'builtin',
      steps: [],
      outDir: config.outDir,
      timeoutMs: config.timeoutMs,
      signer: dumpSigner(config),
      signal: stop.signal,
      supplier,
      ...(config.walkStacks === undefined ? {} : { walkStacks: config.walkStacks }),
    };
    const ctx: InputRunContext = {
      dump,
      validateRecords: config.validateRecords,
      ...(config.shard === undefined ? {} : { shard: config.shard }),
      ...(config.maxDumpBytes === undefined ? {} : { maxDumpBytes: config.maxDumpBytes }),
      ...(config.done === undefined ? {} : { done: new Set(config.done) }),
    };
    return { ctx, supplier };
  })();
  // A supplier that cannot be built fails each dump's request (runDump), not the thread.
  ready.catch(() => undefined);
  batches.set(id, { stop, ready });
}

async function runDump(id: number, seq: number, path: string | Uint8Array): Promise<void> {
  const batch = batches.get(id);
  try {
    if (batch === undefined) throw new AbortedError(`analyze thread: batch ${id} has ended`);
    const { ctx } = await batch.ready;
    // A Uint8Array arrives for a name that is not valid UTF-8 (common/byte-path.ts: a Buffer).
    const bytePath = typeof path === 'string' ? path : Buffer.from(path);
    const started = performance.now();
    const outcome = await analyzeInput(bytePath, ctx);
    const ms = performance.now() - started;
    if (!('record' in outcome)) {
      answer({ type: 'outcome', batch: id, seq, status: outcome.status, ms });
      return;
    }
    answer({
      type: 'outcome',
      batch: id,
      seq,
      status: outcome.status,
      json: outcome.json ?? JSON.stringify(outcome.record),
      analyzed: outcome.analyzed,
      ms,
    });
  } catch (error) {
    if (
      batch?.stop.signal.aborted === true ||
      (isHarnessError(error) && error.code === 'ABORTED')
    ) {
      answer({ type: 'stopped', batch: id, seq });
      return;
    }
    answer({ type: 'fatal', batch: id, seq, error: errorToJSON(error) });
  }
}

/**
 * Dumps handed over and not started. The batch's thread keeps several here so this one never
 * waits for it, but only WORK_AT_ONCE are analysed at a time: every dump in progress is live
 * data each young-generation collection copies, and this thread's young generation is small
 * (thread-config.ts THREAD_LIMITS).
 */
const waiting: { batch: number; seq: number; path: string | Uint8Array }[] = [];
let working = 0;
/** Two, so one dump's file reads (images, symbol files) overlap the other's CPU. */
const WORK_AT_ONCE = 2;

function pump(): void {
  while (working < WORK_AT_ONCE) {
    const next = waiting.shift();
    if (next === undefined) return;
    working++;
    void runDump(next.batch, next.seq, next.path).finally(() => {
      working--;
      if (working === 0 && waiting.length === 0) flush();
      // Through the event loop, so new dumps and aborts come in between.
      setImmediate(pump);
    });
  }
}

async function endBatch(id: number): Promise<void> {
  const batch = batches.get(id);
  batches.delete(id);
  if (batch !== undefined) {
    batch.stop.abort(new AbortedError('analyze batch ended'));
    await batch.ready.then(({ supplier }) => supplier.close()).catch(() => undefined);
  }
  reply({ type: 'ended', batch: id });
}

reply({ type: 'ready' });

port?.on('message', (message: ThreadRequest) => {
  switch (message.type) {
    case 'batch':
      startBatch(message.batch, message.config);
      break;
    case 'dumps':
      for (const { seq, path } of message.dumps) waiting.push({ batch: message.batch, seq, path });
      pump();
      break;
    case 'abort':
      batches.get(message.batch)?.stop.abort(new AbortedError('analysis interrupted'));
      break;
    case 'end':
      void endBatch(message.batch);
      break;
  }
});
