// A batch's options as an analyze thread receives them (thread-messages.ts): the supplier's
// options without the functions (a thread builds its own supplier and signer), the per-input
// settings, and the --resume keys, sent once per batch instead of asked for each dump; and the
// batch's lanes over those threads.
import type { ResourceLimits } from 'node:worker_threads';
import type { DumpRunContext } from './analyze-one.js';
import type { ThreadBatch } from './analyze-threads.js';
import type { InputRunContext } from './input-outcome.js';
import type { ListEdits } from '../../report/analyze/signature-lists.js';
import type { BuiltinSymbolOptions } from './symbols-setup.js';
import type { ThreadBatchConfig } from './thread-messages.js';

export function threadConfig(
  options: Omit<BuiltinSymbolOptions, 'signal' | 'onSymbolServerDown'> & {
    skipModules?: readonly string[];
    signatureLists?: ListEdits;
    timeoutMs?: number;
  },
  dump: DumpRunContext,
  input: InputRunContext,
  done: ReadonlySet<string>,
): ThreadBatchConfig {
  const symbols: ThreadBatchConfig['symbols'] = {
    symbolFiles: true,
    ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
    ...(options.imagePaths === undefined ? {} : { imagePaths: [...options.imagePaths] }),
    ...(options.winePrefix === undefined ? {} : { winePrefix: options.winePrefix }),
    ...(options.env === undefined ? {} : { env: { ...options.env } }),
    ...(options.symbolCacheDir === undefined ? {} : { symbolCacheDir: options.symbolCacheDir }),
    ...(options.symbolDownloadTimeoutMs === undefined
      ? {}
      : { symbolDownloadTimeoutMs: options.symbolDownloadTimeoutMs }),
    ...(options.symbolMaxBytes === undefined ? {} : { symbolMaxBytes: options.symbolMaxBytes }),
    ...(options.symbolRedirects === undefined ? {} : { symbolRedirects: options.symbolRedirects }),
  };
  return {
    symbols,
    ...(options.skipModules === undefined ? {} : { skipModules: [...options.skipModules] }),
    ...(options.signatureLists === undefined ? {} : { signatureLists: options.signatureLists }),
    ...(dump.walkStacks === undefined ? {} : { walkStacks: dump.walkStacks }),
    outDir: dump.outDir,
    timeoutMs: dump.timeoutMs,
    deadlineMs: options.timeoutMs ?? 0,
    validateRecords: input.validateRecords,
    ...(input.shard === undefined ? {} : { shard: input.shard }),
    ...(input.maxDumpBytes === undefined ? {} : { maxDumpBytes: input.maxDumpBytes }),
    ...(input.done === undefined ? {} : { done: [...done] }),
  };
}

/**
 * Dumps each analyze thread holds at once (it works on two of them: analyze-thread.ts), so the
 * next ones are there while the batch's thread is busy writing.
 */
const THREAD_IN_FLIGHT = 8;

/**
 * An analyze thread's heap. The young generation is what a thread's RSS grows by (V8's default
 * semi-spaces took 2,000 example dumps with one thread from 131-139 MB peak to 162-173 MB, and
 * 16 MB took 10,000 from 146 to 158 MB for the same CPU). With two threads on 2 cores, 8 MB took
 * 10,000 example dumps to 152-153 MB and 4 MB to 142-145 MB, the time within the machine's noise
 * (built CLI under GNU time, alternating). The old generation's cap only stops a runaway dump,
 * which then ends its thread, not the run.
 */
export const THREAD_LIMITS: ResourceLimits = {
  maxYoungGenerationSizeMb: 4,
  maxOldGenerationSizeMb: 1024,
};

/**
 * The lanes of a batch: each takes the next input until none is left, on the batch's own thread
 * (undefined) or on analyze thread N. With threads the batch's thread analyses nothing itself:
 * it dispatches, writes records and reports progress. With it analysing too (2 lanes of its
 * own), 2,000 example dumps took 12.7 s against 6.4-7.5 s without, no faster than no thread at
 * all: the threads' answers waited behind its dumps (2 cores, built CLI, a busy machine; the
 * command in thread-plan.ts).
 */
export function threadLanes(threads: number, jobs: number): (number | undefined)[] {
  const lanes: (number | undefined)[] = [];
  for (let t = 0; t < threads; t++) {
    for (let k = 0; k < THREAD_IN_FLIGHT; k++) lanes.push(t);
  }
  if (threads === 0) for (let j = 0; j < jobs; j++) lanes.push(undefined);
  return lanes;
}

/** `threads` analyze threads told the batch's options (none: undefined, nothing loaded). */
export async function startThreads(
  threads: number,
  config: ThreadBatchConfig,
  events: { onServerDown?: (server: string, reason: string) => void; limits?: ResourceLimits },
): Promise<ThreadBatch | undefined> {
  if (threads === 0) return undefined;
  const { analyzeThreadPool } = await import('./analyze-threads.js');
  return analyzeThreadPool().startBatch(config, threads, {
    ...events,
    limits: events.limits ?? THREAD_LIMITS,
  });
}
