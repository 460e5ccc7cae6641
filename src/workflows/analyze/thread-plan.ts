// When an `analyze --engine builtin` batch is spread over analyze threads (analyze-threads.ts),
// and over how many. A thread costs CPU before its first dump (an isolate, the processor's
// modules loaded again, its own JIT warm-up) and memory (a second heap and image cache), so it is
// used only where it pays. Figures below (2 cores, a machine shared with other benches, so CPU
// and peak memory, not wall time) are from the built CLI, alternating, under GNU time:
//   /usr/bin/time -f '%U %S %M' node bin/cdb-harness.js analyze DIR --engine builtin --threads T
// DIR being 100 or 2,000 hard links of examples/dumps (WINEPREFIX set, so images are found) or
// the peer corpus x20 with `--symbol-path` its symbols; and from
//   node --import tsx bench/analyze-walk.ts --dumps 500 --runs 3 --peak-dumps 2000,10000
import { chooseSymbolPath, isHttpLocation, parseSymbolPath } from '../../symbols/symbol-path.js';

/**
 * Fewer dumps than this stay on one thread: a thread's start-up and warm-up cost 0.05-0.4 s of
 * CPU (median about 0.15 s, some 50 example dumps' work: 100 dumps with --threads 1 against
 * --threads 0, built CLI, 4 alternating pairs), at most a tenth of a batch this big.
 */
export const MIN_DUMPS_FOR_THREADS = 500;

export interface ThreadPlanInput {
  engine: string;
  /** `--threads N` / `threads`: 0 turns threads off; a number overrides the choice. */
  requested?: number;
  /** `--jobs`: 1 means one dump at a time, so no thread. */
  jobs?: number;
  /** Dumps in the batch. */
  inputs: number;
  /** availableParallelism(). */
  cores: number;
  /** The symbol path (`--symbols`, else from `env`). */
  symbolPath?: string;
  env: Readonly<Record<string, string | undefined>>;
  /** A `fetch` was handed in (a function cannot cross into a thread). */
  customFetch: boolean;
}

export interface ThreadPlan {
  /** Analyze threads besides the batch's own thread (0: everything on the batch's thread). */
  threads: number;
  /** Why, for the `engine` event and --help. */
  reason: string;
}

export function threadPlan(input: ThreadPlanInput): ThreadPlan {
  const none = (reason: string): ThreadPlan => ({ threads: 0, reason });
  if (input.engine !== 'builtin') return none('debugger engines run in processes of their own');
  if (input.requested === 0) return none('--threads 0');
  if (input.jobs === 1) return none('--jobs 1: one dump at a time');
  if (input.customFetch) return none('a symbol fetch function was given (it stays on one thread)');
  const symbols = chooseSymbolPath(input.symbolPath, undefined, input.env);
  if (symbols !== undefined && hasSymbolServer(symbols.text)) {
    // Downloads take turns and land in one cache (symbols/supplier/download-slots.ts); a second
    // thread would have its own turns and double the cache's bound.
    return none('the symbol path has a symbol server');
  }
  if (input.requested !== undefined) {
    const threads = Math.min(input.requested, Math.max(1, input.inputs));
    return { threads, reason: `--threads ${input.requested}` };
  }
  if (symbols !== undefined) {
    // Each thread would parse and hold its own copy of every symbol file: on the peer corpus
    // with Breakpad's .sym files a thread added 0.3-1 s of CPU to 3.2 s and 45 MB to 115 MB.
    return none('symbol files would be loaded once per thread; --threads N has them anyway');
  }
  if (input.cores < 2) return none('one core');
  if (input.inputs < MIN_DUMPS_FOR_THREADS) {
    return none(`fewer than ${MIN_DUMPS_FOR_THREADS} dumps`);
  }
  // One analyze thread per core; the batch's thread only hands out dumps and writes records
  // (~0.2 ms of CPU a dump). On 2 cores two threads took 10,000 example dumps in 8.0-10.5 s
  // (950-1,245 dumps/s), peak 145-146 MB, where the batch's thread alone took 11.2-12.6 s (built
  // CLI, three alternating pairs, a quiet moment of a shared VM; bench/analyze-walk.ts measures it).
  return {
    threads: Math.min(input.cores, MAX_THREADS),
    reason: `${input.inputs} dumps, ${input.cores} cores`,
  };
}

/**
 * Dumps analysed at once when `--jobs` is not given. A debugger engine: one debugger process per
 * core. The builtin engine: four per core, so that reading one dump's file overlaps another's
 * analysis (480 example dumps with Wine images, 3 alternating pairs: 1.26-1.69 s wall at 8 on
 * 2 cores against 1.42-1.74 s at 2, CPU 0.81-0.91 against 0.89-0.95 s). With symbol files and
 * no symbol server the batch's thread does the work (no analyze thread: threadPlan), and each
 * dump in flight holds its symbol lookups: the peer corpus x20 with Breakpad's .sym files took
 * 80.6-82.1 MB at 4 or 8 per core and 79.0-79.4 MB at one per core, with the same CPU (0.86-0.95
 * s) and wall time (1.00-1.21 s), so that batch runs one per core (built CLI, GNU time, 3
 * alternating pairs; issue 34's goal is 80 MB). A symbol server keeps four per core: downloads
 * overlap.
 */
export function defaultJobs(input: {
  engine: string;
  cores: number;
  symbolPath?: string;
  env: Readonly<Record<string, string | undefined>>;
}): number {
  if (input.engine !== 'builtin') return input.cores;
  const symbols = chooseSymbolPath(input.symbolPath, undefined, input.env);
  if (symbols !== undefined && !hasSymbolServer(symbols.text)) return input.cores;
  return 4 * input.cores;
}

/** The default's cap: each thread holds its own heap, image cache and compiled code (~20-25 MB). */
export const MAX_THREADS = 8;

function hasSymbolServer(symbolPath: string): boolean {
  return parseSymbolPath(symbolPath, '').elements.some(
    (e) => e.kind === 'store' && isHttpLocation(e.upstream),
  );
}
