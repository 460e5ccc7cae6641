// Walks the stacks of an open dump: registers from each thread's CONTEXT (the crashing thread's
// from the exception stream: `.ecxr`), memory from the dump's captured ranges, module images
// found by symbols/supplier/image-locator.ts, names from the export tables (or a SymbolProvider handed in).
// The result is plain data for inspect and analyze; a thread that cannot be walked gets a
// warning, never an error.
import type { InspectedFrame, InspectedStack } from './inspect-stacks.js';
import type { Minidump, MinidumpThread } from '../minidump/minidump.js';
import { archFromProcessor, parseContext, REGISTER_ORDER } from '../stackwalk/context.js';
import { ExportSymbolProvider } from '../stackwalk/exports.js';
import { frameLabel, nameFrames } from '../stackwalk/name-frames.js';
import type {
  ModuleRef,
  RegisterSet,
  StackArch,
  SymbolProvider,
  TargetMemory,
  UnwindProvider,
  WalkLimits,
} from '../stackwalk/types.js';
import { moduleIndex, walkStack } from '../stackwalk/walk.js';
import { dumpImages, type ImageLocatorOptions } from '../symbols/supplier/image-locator.js';

export interface DumpStacksOptions extends ImageLocatorOptions {
  /** Which threads: every thread (inspect) or only the one the exception names (analyze). */
  threads?: 'all' | 'exception';
  symbols?: SymbolProvider;
  unwind?: UnwindProvider;
  limits?: WalkLimits;
  /** Look names up in export tables (default true). */
  exportNames?: boolean;
  /**
   * Wall-clock budget per thread in ms (default 5000): a safety net only. Wall time depends on
   * the machine's load and on the other dumps a batch walks at once, so the bound that keeps
   * walks (and the buckets built on them) reproducible is the read budget (limits.maxReads).
   */
  threadBudgetMs?: number;
}

export type WalkedFrame = InspectedFrame;
export type WalkedStack = InspectedStack & { threadId: number };

export interface DumpStacks {
  arch: StackArch | null;
  stacks: WalkedStack[];
  /** `.ecxr; r`: the registers at the exception, in `r` order, hex. */
  exceptionRegisters?: Record<string, string>;
  /** Where each module's image was found (`dump`, `recorded-path`, `image-path`). */
  images: Record<string, string>;
  /** Bytes read from image files outside the dump. */
  imageBytesRead: number;
  warnings: string[];
}

export async function walkDumpStacks(
  dump: Minidump,
  options: DumpStacksOptions = {},
): Promise<DumpStacks> {
  const [system, threads, exception, dumpModules] = await Promise.all([
    dump.systemInfo(),
    dump.threads(),
    dump.exception(),
    dump.modules(),
  ]);
  const arch = system ? archFromProcessor(system.processorArchitecture) : null;
  const result: DumpStacks = { arch, stacks: [], images: {}, imageBytesRead: 0, warnings: [] };
  if (arch === null) {
    result.warnings.push('stacks not walked: the CPU is not x86 or x64 (or SystemInfo is missing)');
    return result;
  }
  const modules: ModuleRef[] = dumpModules.map((m) => {
    const ref: ModuleRef = {
      name: m.name,
      path: m.path,
      base: m.base,
      size: m.size,
      timestamp: m.timeDateStamp,
      checksum: m.checksum,
      codeId: m.codeId,
    };
    const cv = m.codeView;
    if (cv) {
      ref.codeView = {};
      if (cv.pdbName !== undefined) ref.codeView.pdbName = cv.pdbName;
      if (cv.pdbPath !== undefined) ref.codeView.pdbPath = cv.pdbPath;
      if (cv.guid !== undefined) ref.codeView.guid = cv.guid;
      if (cv.age !== undefined) ref.codeView.age = cv.age;
      if (cv.debugId !== undefined) ref.codeView.debugId = cv.debugId;
    }
    return ref;
  });
  const images = dumpImages(dump, options);
  const baseInput = {
    arch,
    memory: { read: (address: bigint, length: number) => dump.readMemory(address, length) },
    modules,
    images,
    ...(options.unwind === undefined ? {} : { unwind: options.unwind }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  };
  const index = moduleIndex(modules, { ...baseInput, threadId: 0, registers: {} });
  const providers: SymbolProvider[] = [];
  if (options.symbols) providers.push(options.symbols);
  if (options.exportNames !== false)
    providers.push(new ExportSymbolProvider((m) => images.image(m)));
  const naming: SymbolProvider = {
    async lookup(module, rva) {
      for (const provider of providers) {
        const hit = await provider.lookup(module, rva);
        if (hit !== undefined) return hit;
      }
      return undefined;
    },
    async covers(module) {
      for (const provider of providers) {
        if ((await provider.covers?.(module)) === true) return true;
      }
      return false;
    },
  };
  try {
    const chosen =
      options.threads === 'exception'
        ? threads.filter((t) => t.id === exception?.threadId)
        : threads;
    for (const thread of chosen) {
      const fromException = exception !== null && exception.threadId === thread.id;
      const location = fromException ? exception.context : thread.context;
      const registers = await readRegisters(dump, location, arch);
      if (registers === null) {
        result.warnings.push(`thread ${thread.id}: no readable register context; not walked`);
        continue;
      }
      if (fromException) result.exceptionRegisters = registerText(registers, arch);
      const deadline = performance.now() + (options.threadBudgetMs ?? DEFAULT_THREAD_BUDGET_MS);
      const walk = await walkStack(
        {
          ...baseInput,
          limits: { ...options.limits, outOfTime: () => performance.now() > deadline },
          memory: threadMemory(dump, thread),
          threadId: thread.id,
          registers,
          symbols: naming,
          ...stackBounds(thread),
        },
        index,
      );
      await nameFrames(walk.frames, naming);
      result.stacks.push({
        threadId: thread.id,
        context: fromException ? 'exception' : 'thread',
        frames: walk.frames.map((f) => ({
          index: f.index,
          label: frameLabel(f),
          ...(f.module === undefined ? {} : { module: f.module.name }),
          ...(f.moduleOffset === undefined ? {} : { moduleOffset: hex(f.moduleOffset) }),
          ...(f.symbol === undefined
            ? {}
            : { function: f.symbol.function, functionOffset: hex(f.symbol.offset) }),
          ...(f.symbol?.file === undefined ? {} : { file: f.symbol.file }),
          ...(f.symbol?.line === undefined ? {} : { line: f.symbol.line }),
          address: hex(f.address),
          ...(f.returnAddress === undefined ? {} : { returnAddress: hex(f.returnAddress) }),
          stackPointer: hex(f.stackPointer),
          trust: f.trust,
        })),
        stop: walk.stop,
        warnings: walk.warnings,
      });
    }
  } finally {
    result.imageBytesRead = images.fileBytesRead;
    result.images = images.origins();
    await images.close();
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
 * through the map.
 */
function threadMemory(dump: Minidump, thread: MinidumpThread): TargetMemory {
  const { start, size, rva } = thread.stack;
  const direct = rva !== 0 && size > 0 && size <= MAX_STACK_READ && rva + size <= dump.fileSize;
  const end = start + BigInt(size);
  // The whole captured stack in one read, the first time any of it is asked for.
  let whole: Promise<Buffer> | undefined;
  return {
    async read(address, length) {
      if (direct && address >= start && address < end) {
        whole ??= dump.readLocation(rva, size);
        const bytes = await whole;
        const at = Number(address - start);
        return bytes.subarray(at, Math.min(bytes.length, at + length));
      }
      return dump.readMemory(address, length);
    },
  };
}

const DEFAULT_THREAD_BUDGET_MS = 5000;

/** Captured stacks bigger than this are read piecemeal (a thread's stack is 1 MiB by default). */
const MAX_STACK_READ = 1 << 20;

function stackBounds(thread: MinidumpThread): { stack?: { low: bigint; high: bigint } } {
  if (thread.stack.size === 0) return {};
  return {
    stack: { low: thread.stack.start, high: thread.stack.start + BigInt(thread.stack.size) },
  };
}

/** `{rax: "0x0", rip: "0x14000159b", …}` in `r` order, the records' `0x…` form. */
function registerText(registers: RegisterSet, arch: StackArch): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of REGISTER_ORDER[arch]) {
    const value = registers[name];
    if (value !== undefined) out[name] = hex(value);
  }
  return out;
}

function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}
