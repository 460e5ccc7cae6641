// processDump(): the one way in to a dump's contents, on the model of rust-minidump's
// `process_minidump` (minidump-processor/src/processor.rs): read the streams through the pure
// reader, walk the chosen threads with the pure walker, name each frame during the walk through
// the one supplier (symbols/supplier/symbol-supplier.ts: symbol files and images, then export
// tables), and hand back a typed ProcessState. It never throws for a bad file: an unreadable header or directory,
// or an I/O error, gives `ok: false` + `error`. Only an abort is rethrown: the caller asked for it.
import { AbortedError, errorToJSON } from '../errors.js';
import { openMinidump, type Minidump } from '../minidump/minidump.js';
import type { DumpException } from '../minidump/streams/exception.js';
import type { DumpModule } from '../minidump/streams/module-list.js';
import { archFromProcessor } from '../stackwalk/context.js';
import type { UnwindProvider, WalkLimits } from '../stackwalk/types.js';
import type { SymbolFileProvider } from '../symbols/supplier/symbol-provider.js';
import { SymbolSupplier, type DumpSupply } from '../symbols/supplier/symbol-supplier.js';
import type * as SymbolStatusModule from './symbol-status.js';
import { findClrRuntime } from './clr.js';
import { classifyDump } from './dump-kind.js';
import type {
  ProcessInfo,
  ProcessModule,
  ProcessResult,
  ProcessState,
  ProcessThread,
} from './process-state.js';
import { processException } from './process-exception.js';
import { walkHeaps } from './heap-walk.js';
import { processHeaps } from './process-heaps.js';
import { notePastEndContexts, truncationLine } from './truncated-streams.js';
import { DEFAULT_OTHER_THREADS, walkThreads } from './walk-threads.js';
import { fingerprintWriter } from './writer-fingerprint.js';

/** MINIDUMP_THREAD_INFO DumpFlags: MINIDUMP_THREAD_INFO_WRITING_THREAD (minidumpapiset.h). */
const WRITING_THREAD = 0x2;

export interface ProcessOptions {
  signal?: AbortSignal;
  /**
   * The whole file, when the caller already read it (analyze reads a small dump once to hash it):
   * the dump is read from these bytes, not opened again. Only with a path.
   */
  bytes?: Buffer;
  /**
   * Whose stacks to walk: every thread (default, as minidump-stackwalk), the one the exception
   * names (a batch's triage), or none (reading the streams only: dump verification).
   */
  threads?: 'all' | 'exception' | 'none';
  /**
   * `triage`: leave out the streams no triage record shows (MemoryInfoList, HandleData,
   * UnloadedModuleList, ProcessVmCounters): they are neither parsed nor warned about, and the
   * state has no `memory.info`, `handles`, `unloadedModules` or process memory counters. analyze
   * uses it (its records never show them; a MemoryInfoList is hundreds of 48-byte entries a
   * dump); the default reads every stream, as `inspect` shows them.
   */
  streams?: 'all' | 'triage';
  /**
   * Where symbol files (names, and unwind data from .sym files) and module images come from, for
   * every dump of a run (createSymbolSupplier()). Without one: images from the dump and the paths
   * it recorded, no symbol files.
   */
  supplier?: SymbolSupplier;
  /**
   * Keep the MemoryInfoList's regions and read the process heaps from the PEB (`state.regions`):
   * heap-trend's memory categories. Reads a few pages of the dump's memory, never the rest.
   */
  regions?: boolean;
  /** More unwind data, asked before the symbol files' (a caller's own frame data). */
  unwind?: UnwindProvider;
  limits?: WalkLimits;
  /** Name frames from the images' export tables when no symbol file does (default true). */
  exportNames?: boolean;
  /** Wall-clock safety net per thread, ms (walk-threads.ts). */
  threadBudgetMs?: number;
  /**
   * With `threads: 'all'`: how many threads besides the crashing one to walk, and for how long
   * in all (default DEFAULT_OTHER_THREADS); `null` walks every thread (`inspect --all-threads`).
   */
  otherThreads?: { count: number; ms: number } | null;
}

/** Opens `dump` (a path) or reads an open one, and processes it; the caller closes what it opened. */
export async function processDump(
  dump: string | Buffer | Minidump,
  options: ProcessOptions = {},
): Promise<ProcessResult> {
  if (typeof dump !== 'string' && !Buffer.isBuffer(dump)) return readDump(dump, options);
  let opened: Minidump | undefined;
  try {
    opened = await openMinidump(dump, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.bytes === undefined ? {} : { bytes: options.bytes }),
    });
    return await readDump(opened, options);
  } catch (error) {
    if (error instanceof AbortedError) throw error;
    return {
      // Text for people; the bytes of a name that is not UTF-8 are the caller's to keep.
      file: dump.toString(),
      ok: false,
      error: errorToJSON(error, { brief: true }),
      warnings: opened ? opened.warnings() : [],
      ...(opened ? { fileSize: opened.fileSize } : {}),
    };
  } finally {
    await opened?.close();
  }
}

async function readDump(dump: Minidump, options: ProcessOptions): Promise<ProcessState> {
  const all = options.streams !== 'triage';
  const [
    systemInfo,
    miscInfo,
    exception,
    threads,
    dumpModules,
    unloaded,
    handles,
    memoryInfo,
    vm,
    comments,
  ] = await Promise.all([
    dump.systemInfo(),
    dump.miscInfo(),
    dump.exception(),
    dump.threads(),
    dump.modules(),
    all ? dump.unloadedModules() : [],
    all ? dump.handles() : null,
    all || options.regions === true ? dump.memoryInfo() : null,
    all ? dump.vmCounters() : null,
    dump.comments(),
  ]);
  const breakpad = await dump.breakpadInfo();
  const assertion = await dump.assertionInfo();
  const memory = await dump.memorySummary();
  const streams = dump.streams();
  const { kind, warnings: kindWarnings } = classifyDump({
    flags: dump.header.flags,
    streams,
    memory64DeclaredBytes: memory.memory64DeclaredBytes,
  });
  const signExtendedAddresses =
    systemInfo?.processorArchitecture === 0 &&
    ((await dump.memoryMap()).highestStart() ?? 0n) >= 0xffffffff00000000n;
  const writer = fingerprintWriter({
    header: dump.header,
    streams,
    miscInfo,
    systemInfo,
    signExtendedAddresses,
  });

  const warnings = [...kindWarnings];
  if (!systemInfo) warnings.push('no readable SystemInfo stream: architecture and OS unknown');
  if (!dump.stream(0x4)) warnings.push('no ModuleList stream');
  if (!dump.stream(0x3) && !dump.stream(0x8)) warnings.push('no ThreadList stream');
  if (dump.header.timeDateStamp === 0) warnings.push('the header time stamp is 0');

  const modules = dumpModules.map(processModule);
  const info: ProcessInfo = {};
  if (miscInfo?.processId !== undefined) info.pid = miscInfo.processId;
  if (miscInfo?.processCreateTime !== undefined && miscInfo.processCreateTime !== 0) {
    info.createTime = miscInfo.processCreateTime;
    const uptime = dump.header.timeDateStamp - miscInfo.processCreateTime;
    if (dump.header.timeDateStamp !== 0 && uptime >= 0) info.uptimeSeconds = uptime;
  }
  if (miscInfo?.processUserTimeSeconds !== undefined)
    info.userTimeSeconds = miscInfo.processUserTimeSeconds;
  if (miscInfo?.processKernelTimeSeconds !== undefined)
    info.kernelTimeSeconds = miscInfo.processKernelTimeSeconds;
  if (modules[0]) info.main = modules[0];
  if (vm) {
    info.privateUsage = vm.privateUsage;
    info.workingSetSize = vm.workingSetSize;
  }

  const arch = systemInfo ? archFromProcessor(systemInfo.processorArchitecture) : null;
  // The thread that wrote the dump (Breakpad's handler thread, or ThreadInfoList's
  // MINIDUMP_THREAD_INFO.DumpFlags WritingThread) is not the one the dump is about; that one is
  // the exception's, else the one BreakpadInfo says asked for the dump, else the first other.
  const writerId =
    breakpad?.dumpThreadId ??
    threads.find((t) => t.info !== undefined && (t.info.dumpFlags & WRITING_THREAD) !== 0)?.id;
  const requestingId =
    exception?.threadId ??
    breakpad?.requestingThreadId ??
    threads.find((t) => t.id !== writerId)?.id;
  const state: ProcessState = {
    ok: true,
    file: dump.path,
    fileSize: dump.fileSize,
    dumpKind: kind,
    headerFlags: dump.header.flags,
    time: dump.header.timeDateStamp,
    system: systemInfo,
    arch,
    process: info,
    exception: exception && processException(exception, modules, dumpModules, arch),
    threads: threads.map((t): ProcessThread => ({
      ...t,
      faulting: exception !== null && exception.threadId === t.id,
      ...(t.id === writerId ? { writingThread: true } : {}),
    })),
    ...(requestingId === undefined ? {} : { requestingThreadId: requestingId }),
    modules,
    unloadedModules: unloaded,
    memory: {
      rangeCount: memory.rangeCount,
      totalBytes: memory.totalBytes,
      sources: memory.sources,
      missingBytes: memory.missingBytes,
      ...(memoryInfo ? { info: memoryInfo.summary } : {}),
    },
    comments,
    streams,
    imageBytesRead: 0,
    bytesRead: 0,
    truncated: false,
    warnings: [],
  };
  const clr = findClrRuntime(dumpModules);
  if (clr) state.clr = clr;
  if (writer) state.writer = { writer: writer.writer, evidence: writer.evidence };
  if (assertion) state.assertion = assertion;
  if (handles) state.handles = handles;
  if (options.regions === true) {
    // The heaps hang off the PEB, found through a thread's TEB (the first that has one: a dump
    // can list a thread whose TEB it did not record as 0).
    const heaps = await processHeaps(dump, threads.find((t) => t.teb !== 0n)?.teb);
    const regions = memoryInfo?.regions ?? null;
    state.regions = { regions, heaps };
    // Each heap's sub-heaps and large blocks, sized from the same regions (heap-walk.ts).
    if (regions !== null) {
      state.regions.heapWalk = await walkHeaps(
        dump,
        regions,
        heaps,
        (await dump.systemInfo())?.arch,
      );
    }
  }

  const supplier = options.supplier ?? new SymbolSupplier({ cacheImages: false });
  const symbolizer = supplier.symbolizer;
  const which = options.threads ?? 'all';
  // Images are only looked for by a walk; the symbol files name the exception even without one.
  const supply = which === 'none' && symbolizer === undefined ? undefined : supplier.forDump(dump);
  try {
    if (which !== 'none' && supply !== undefined) {
      await walk(dump, state, exception, which, options, supply, warnings);
    }
    if (symbolizer !== undefined && supply?.files !== undefined) {
      await nameException(state, supply.files);
      const { modulesInUse, moduleSymbolStatus } = await symbolStatus();
      state.symbols = await moduleSymbolStatus(
        modulesInUse(state),
        symbolizer,
        supply.files,
        warnings,
      );
    }
  } finally {
    await supply?.close();
  }
  await notePastEndContexts(dump);
  const pastEnd = dump.pastEnd();
  if (pastEnd.size > 0) {
    state.truncated = true;
    state.pastEnd = Object.fromEntries(pastEnd);
  }
  // Through the dump's warning log: bounded per kind, repeats dropped.
  for (const warning of warnings) dump.warn(warning);
  // One line for a truncated file, first: not a warning per module name it cannot reach.
  const line = truncationLine(state);
  state.warnings = line === null ? dump.warnings() : [line, ...dump.warnings()];
  state.bytesRead = dump.bytesRead;
  return state;
}

/**
 * The symbol status module, imported on the first dump that has symbol files and kept: an
 * `import()` per dump costs a module resolution each time (under tsx's loader a round trip to its
 * hooks thread, about 1 ms), which a batch of small dumps pays thousands of times. (The symbol
 * readers themselves are loaded once per run, by createSymbolSupplier.)
 */
let statusModule: Promise<typeof SymbolStatusModule> | undefined;

function symbolStatus(): Promise<typeof SymbolStatusModule> {
  statusModule ??= import('./symbol-status.js');
  return statusModule;
}

/** Walks the chosen threads into `state` (stacks, exception registers, images, symbol status). */
async function walk(
  dump: Minidump,
  state: ProcessState,
  exception: DumpException | null,
  which: 'all' | 'exception',
  options: ProcessOptions,
  supply: DumpSupply,
  warnings: string[],
): Promise<void> {
  if (state.arch === null) {
    warnings.push('stacks not walked: the CPU is not x86 or x64 (or SystemInfo is missing)');
    return;
  }
  const { images, files } = supply;
  const unwind = mergeUnwind(options.unwind, files);
  try {
    const walked = await walkThreads(dump, state.arch, state.modules, state.threads, exception, {
      threads: which,
      ...(state.requestingThreadId === undefined
        ? {}
        : { requestingThreadId: state.requestingThreadId }),
      images,
      ...(files === undefined ? {} : { symbols: files }),
      ...(unwind === undefined ? {} : { unwind }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.exportNames === undefined ? {} : { exportNames: options.exportNames }),
      ...(options.threadBudgetMs === undefined ? {} : { threadBudgetMs: options.threadBudgetMs }),
      // Vista (6.0) and later start every thread in ntdll!RtlUserThreadStart.
      ...((state.system?.majorVersion ?? 0) >= 6 ? { startsInNtdll: true } : {}),
      ...(options.otherThreads === null
        ? {}
        : { otherThreads: options.otherThreads ?? DEFAULT_OTHER_THREADS }),
    });
    for (const thread of state.threads) {
      const stack = walked.stacks.get(thread.id);
      if (stack) thread.callStack = stack;
    }
    if (state.exception && walked.exceptionRegisters) {
      state.exception.registers = walked.exceptionRegisters;
    }
    for (const warning of walked.warnings) warnings.push(warning);
  } finally {
    state.imageBytesRead = images.fileBytesRead;
    state.images = images.origins();
  }
}

/** The exception address named from symbol files (frame 0 when walked; the one frame when not). */
async function nameException(state: ProcessState, files: SymbolFileProvider): Promise<void> {
  const exception = state.exception;
  if (exception?.module === undefined) return;
  const frame0 = state.threads.find((t) => t.id === exception.threadId)?.callStack?.frames[0];
  if (frame0?.symbol !== undefined && frame0.address === exception.address) {
    exception.symbol = frame0.symbol;
    return;
  }
  const rva = Number(exception.address - exception.module.base);
  const hit = await files.lookup(exception.module, rva);
  if (hit !== undefined) exception.symbol = hit;
}

function mergeUnwind(
  first: UnwindProvider | undefined,
  second: UnwindProvider | undefined,
): UnwindProvider | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return {
    async x86Frame(module, rva) {
      return (await first.x86Frame?.(module, rva)) ?? (await second.x86Frame?.(module, rva));
    },
    async cfi(module, rva) {
      return (await first.cfi?.(module, rva)) ?? (await second.cfi?.(module, rva));
    },
  };
}

/** The one converter from the reader's module entry to the dump side's ModuleIdentity. */
function processModule(m: DumpModule): ProcessModule {
  const out: ProcessModule = {
    name: m.name,
    path: m.path,
    base: m.base,
    size: m.size,
    timestamp: m.timeDateStamp,
    checksum: m.checksum,
    codeId: m.codeId,
  };
  if (m.fileVersion !== undefined) out.fileVersion = m.fileVersion;
  if (m.productVersion !== undefined) out.productVersion = m.productVersion;
  const cv = m.codeView;
  if (cv) {
    out.codeView = {};
    if (cv.pdbName !== undefined) out.codeView.pdbName = cv.pdbName;
    if (cv.pdbPath !== undefined) out.codeView.pdbPath = cv.pdbPath;
    if (cv.guid !== undefined) out.codeView.guid = cv.guid;
    if (cv.age !== undefined) out.codeView.age = cv.age;
    if (cv.debugId !== undefined) out.codeView.debugId = cv.debugId;
  }
  return out;
}
