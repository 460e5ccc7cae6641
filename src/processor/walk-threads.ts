// Walks the stacks of an open dump: registers from each thread's CONTEXT (the crashing thread's
// from the exception stream: `.ecxr`), memory from the dump's captured ranges, module images
// handed in (symbols/supplier/image-locator.ts), names from symbol files and then the export
// tables, put on each frame during the walk. The result stays typed (bigint, module objects);
// a thread that cannot be walked gets a warning, never an error.
import type { ModuleIdentity } from '../common/module-identity.js';
import type { MemoryMap } from '../minidump/memory-map.js';
import type { Minidump, MinidumpThread } from '../minidump/minidump.js';
import type { DumpException } from '../minidump/streams/exception.js';
import { parseContext } from '../stackwalk/context.js';
import { ExportSymbolProvider } from '../stackwalk/exports.js';
import { WalkClock } from './walk-clock.js';
import { waits, type Maybe } from '../stackwalk/scan.js';
import type { PeImage } from '../stackwalk/pe-image.js';
import type {
  ModuleRef,
  RegisterSet,
  StackArch,
  SymbolHit,
  SymbolProvider,
  TargetMemory,
  UnwindProvider,
  WalkLimits,
} from '../stackwalk/types.js';
import { moduleIndex } from '../stackwalk/module-index.js';
import { walkStack } from '../stackwalk/walk.js';
import type { DumpImages } from '../symbols/supplier/image-locator.js';
import type { CallStack } from './process-state.js';

export interface WalkThreadsOptions {
  /**
   * Which threads: every thread (inspect) or only the one the dump is about (analyze): the
   * exception's, else requestingThreadId.
   */
  threads: 'all' | 'exception';
  /** Without an exception, the thread `exception` walks (ProcessState.requestingThreadId). */
  requestingThreadId?: number;
  /** The dump's module images (symbols/supplier/image-locator.ts). */
  images: DumpImages;
  /** Names from symbol files, asked before the export tables. */
  symbols?: SymbolProvider;
  unwind?: UnwindProvider;
  limits?: WalkLimits;
  /** Look names up in export tables (default true). */
  exportNames?: boolean;
  /**
   * Time budget per thread in ms (default 5000): a safety net only, and waits on symbol files
   * and images (downloads, indexing) do not count (walk-clock.ts). Wall time depends on the
   * machine's load and on the other dumps a batch walks at once, so the bound that keeps walks
   * (and the buckets built on them) reproducible is the read budget (limits.maxReads); a stack
   * cut by time says so (CallStack.cut) and its record forms no bucket.
   */
  threadBudgetMs?: number;
  /** Windows Vista or later: threads start in ntdll (WalkInput.startsInNtdll). */
  startsInNtdll?: boolean;
  /**
   * With `threads: 'all'`: how many threads besides the crashing one are walked, and for how
   * long in all; the rest are left unwalked with one warning. Absent: every thread.
   */
  otherThreads?: { count: number; ms: number };
}

/**
 * The default bound on the stacks of non-crashing threads: a dump of 20,000 threads is read
 * (every thread listed) but not walked whole unless asked (`inspect --all-threads`).
 */
export const DEFAULT_OTHER_THREADS = { count: 256, ms: 10_000 };

export interface WalkedThreads {
  /** By thread id. */
  stacks: Map<number, CallStack>;
  /** `.ecxr; r`: the registers at the exception. */
  exceptionRegisters?: RegisterSet;
  warnings: string[];
}

/** Walks the chosen threads of an open dump; frames are named as they are found. */
export async function walkThreads(
  dump: Minidump,
  arch: StackArch,
  modules: readonly ModuleIdentity[],
  threads: readonly MinidumpThread[],
  exception: DumpException | null,
  options: WalkThreadsOptions,
): Promise<WalkedThreads> {
  const result: WalkedThreads = { stacks: new Map(), warnings: [] };
  // Waits on images and symbol files stop the budget's clock (walk-clock.ts).
  const clock = new WalkClock();
  const images = {
    image: (module: ModuleRef) =>
      clock.pause(options.images.image(module)) as Promise<PeImage | undefined>,
  };
  const unwind = options.unwind === undefined ? undefined : pausedUnwind(options.unwind, clock);
  const baseInput = {
    arch,
    memory: { read: (address: bigint, length: number) => dump.readMemory(address, length) },
    modules,
    images,
    ...(unwind === undefined ? {} : { unwind }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.startsInNtdll === true ? { startsInNtdll: true } : {}),
  };
  const providers: SymbolProvider[] = [];
  if (options.symbols) providers.push(options.symbols);
  if (options.exportNames !== false)
    providers.push(new ExportSymbolProvider((m) => images.image(m)));
  // Each provider in turn; a promise only when one of them has to wait (a symbol file loading).
  const firstHit = (from: number, module: ModuleRef, rva: number): Maybe<SymbolHit | undefined> => {
    for (let i = from; i < providers.length; i++) {
      const hit = providers[i]!.lookup(module, rva);
      if (waits(hit)) {
        return hit.then((found) => (found !== undefined ? found : firstHit(i + 1, module, rva)));
      }
      if (hit !== undefined) return hit;
    }
    return undefined;
  };
  const anyCovers = (from: number, module: ModuleRef): Maybe<boolean> => {
    for (let i = from; i < providers.length; i++) {
      const covers = providers[i]!.covers?.(module);
      if (waits(covers)) return covers.then((yes) => yes === true || anyCovers(i + 1, module));
      if (covers === true) return true;
    }
    return false;
  };
  const inlines = options.symbols?.inlines?.bind(options.symbols);
  const naming: SymbolProvider | undefined =
    providers.length === 0
      ? undefined
      : {
          lookup: (module, rva) => clock.pause(firstHit(0, module, rva)),
          // Some provider has a symbol file for the module: scanned words must be in its functions.
          covers: (module) => clock.pause(anyCovers(0, module)),
          // Inline frames come from symbol files only (an export table knows no inlining).
          ...(inlines === undefined
            ? {}
            : { inlines: (module: ModuleRef, rva: number) => clock.pause(inlines(module, rva)) }),
        };
  const index = moduleIndex(modules, {
    ...baseInput,
    threadId: 0,
    registers: {},
    ...(naming === undefined ? {} : { symbols: naming }),
  });
  const crashingId = exception?.threadId ?? options.requestingThreadId;
  const crashing = threads.filter((t) => t.id === crashingId);
  const chosen =
    options.threads === 'exception'
      ? crashing
      : crashing.concat(threads.filter((t) => t.id !== crashingId));
  const bound = options.threads === 'all' ? options.otherThreads : undefined;
  const started = performance.now();
  let others = 0;
  for (const [position, thread] of chosen.entries()) {
    const fromException = exception !== null && exception.threadId === thread.id;
    if (bound !== undefined && !fromException) {
      if (others >= bound.count || performance.now() - started > bound.ms) {
        const left = chosen.length - position;
        result.warnings.push(
          `stacks of ${left} more thread(s) not walked: by default at most ${bound.count} threads besides the crashing one, within ${bound.ms / 1000} s (inspect --all-threads walks every thread)`,
        );
        break;
      }
      others++;
    }
    const location = fromException ? exception.context : thread.context;
    const registers = await readRegisters(dump, location, arch);
    if (registers === null) {
      result.warnings.push(`thread ${thread.id}: no readable register context; not walked`);
      continue;
    }
    if (fromException) result.exceptionRegisters = registers;
    const outOfTime = clock.budget(options.threadBudgetMs ?? DEFAULT_THREAD_BUDGET_MS);
    const walk = await walkStack(
      {
        ...baseInput,
        limits: { ...options.limits, outOfTime },
        memory: threadMemory(dump, thread),
        threadId: thread.id,
        registers,
        ...(naming === undefined ? {} : { symbols: naming }),
        ...stackBounds(thread),
      },
      index,
    );
    result.stacks.set(thread.id, {
      context: fromException ? 'exception' : 'thread',
      frames: walk.frames,
      stop: walk.stop,
      ...(walk.cut === undefined ? {} : { cut: walk.cut }),
      warnings: walk.warnings,
    });
  }
  return result;
}

async function readRegisters(
  dump: Minidump,
  location: { size: number; rva: number },
  arch: StackArch,
): Promise<RegisterSet | null> {
  if (location.rva === 0 || location.size === 0) return null;
  const bytes = await dump.readLocation(location.rva, Math.min(location.size, 4096));
  return parseContext(bytes, arch);
}

/**
 * The dump's memory as one thread's walk reads it: its own captured stack straight from the file
 * offset the thread list gives (mini dumps keep it there), so a walk that stays on the stack never
 * builds the dump's whole address map (thousands of ranges in a winedbg dump); anything else
 * through the map. `readNow` gives the same answers without a promise once they are at hand: the
 * stack once read, and "not captured" for an address the map (once a read built it) holds in no
 * range, as readMemory answers it (minidump.ts: null when the address itself was not captured).
 */
function threadMemory(dump: Minidump, thread: MinidumpThread): TargetMemory {
  const { start, size, rva } = thread.stack;
  const direct = rva !== 0 && size > 0 && size <= MAX_STACK_READ && rva + size <= dump.fileSize;
  const end = start + BigInt(size);
  // The whole captured stack in one read, the first time any of it is asked for.
  let whole: Promise<Buffer> | undefined;
  let stack: Buffer | undefined;
  let map: MemoryMap | undefined;
  return {
    async read(address, length) {
      if (direct && address >= start && address < end) {
        whole ??= dump.readLocation(rva, size);
        const bytes = await whole;
        stack = bytes;
        const at = Number(address - start);
        return bytes.subarray(at, Math.min(bytes.length, at + length));
      }
      const bytes = await dump.readMemory(address, length);
      // readMemory built the map to answer: it is at hand from now on.
      map ??= await dump.memoryMap();
      return bytes;
    },
    readNow(address, length) {
      if (direct && address >= start && address < end) {
        // A dump held in memory: the stack is at hand from the start (no first read to wait for).
        stack ??= dump.readLocationNow(rva, size);
        if (stack === undefined) return undefined;
        const at = Number(address - start);
        return stack.subarray(at, Math.min(stack.length, at + length));
      }
      if (map !== undefined && length > 0 && address >= 0n && map.find(address) < 0) return null;
      return undefined;
    },
  };
}

const DEFAULT_THREAD_BUDGET_MS = 5000;

/** The unwind hooks with their waits (a .sym file loading) off the budget's clock. */
function pausedUnwind(unwind: UnwindProvider, clock: WalkClock): UnwindProvider {
  const out: UnwindProvider = {};
  const x86Frame = unwind.x86Frame?.bind(unwind);
  const cfi = unwind.cfi?.bind(unwind);
  if (x86Frame !== undefined) {
    const paused: NonNullable<UnwindProvider['x86Frame']> = (module, rva) =>
      clock.pause(x86Frame(module, rva));
    out.x86Frame = paused;
  }
  if (cfi !== undefined) {
    const paused: NonNullable<UnwindProvider['cfi']> = (module, rva) =>
      clock.pause(cfi(module, rva));
    out.cfi = paused;
  }
  return out;
}

/** Captured stacks bigger than this are read piecemeal (a thread's stack is 1 MiB by default). */
const MAX_STACK_READ = 1 << 20;

function stackBounds(thread: MinidumpThread): { stack?: { low: bigint; high: bigint } } {
  if (thread.stack.size === 0) return {};
  return {
    stack: { low: thread.stack.start, high: thread.stack.start + BigInt(thread.stack.size) },
  };
}
