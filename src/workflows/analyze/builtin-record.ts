// What the dump alone says, as the fields of an analyze record: exception, process, modules,
// threads, memory, and the crashing thread's walked frames (or, not walked, one frame for the
// exception address, `module+0xoff`). This is the whole
// record for `--engine builtin`, and the starting point a debugger's answers are merged into for
// `cdb` and `winedbg` (the dump's own exception stream beats text parsed from a debugger).
import type { AssertionInfo } from '../../minidump/streams/assertion-info.js';
import { hex, hex32 } from '../../minidump/bytes.js';
import type { InspectedClr } from '../../processor/clr.js';
import type {
  ProcessException,
  ProcessFrame,
  ProcessModule,
  ProcessState,
} from '../../processor/process-state.js';
import type {
  AnalyzeException,
  AnalyzeFrame,
  AnalyzeModuleInfo,
  AnalyzeModules,
  NotAvailable,
} from '../../report/analyze/analyze-record.js';
import { epochToIso } from '../../report/inspect/inspect-describe.js';
import { registerText } from '../../report/inspect/inspect-stacks.js';
import type { DumpFacts } from './triage-script.js';

export interface BuiltinFields {
  dumpKind: 'full' | 'mini';
  dumpTimestamp: string;
  process: { name?: string; pid?: number };
  exception: AnalyzeException | null;
  frames: AnalyzeFrame[];
  modules: AnalyzeModules;
  threadCount: number;
  memory: { rangeCount: number; totalBytes: number };
  clr?: InspectedClr;
  /** The crashing thread's walk was cut by a budget (AnalyzeDumpRecord.walkCut). */
  walkCut?: 'time' | 'reads';
  /** Breakpad's AssertionInfo stream (AnalyzeDumpRecord.assertion). */
  assertion?: AssertionInfo;
  notAvailable: NotAvailable[];
  warnings: string[];
}

export function builtinFields(state: ProcessState): BuiltinFields {
  const exception = state.exception;
  const analyzed: AnalyzeException | null = exception && analyzeException(exception, state);
  // The exception's thread, or without one the thread that asked for the dump (or thread 0).
  const stack = state.threads.find((t) => t.id === state.requestingThreadId)?.callStack;
  const frames: AnalyzeFrame[] =
    stack !== undefined && stack.frames.length > 0
      ? stack.frames.flatMap((f) => analyzeFrames(f, exception !== null))
      : [];
  if (exception && frames.length === 0) frames.push(exceptionFrame(exception));
  const process: BuiltinFields['process'] = {};
  if (state.process.main !== undefined) process.name = state.process.main.name;
  if (state.process.pid !== undefined) process.pid = state.process.pid;
  const notAvailable: NotAvailable[] = ['frames.symbols', 'clrException', 'heapSummary', 'analyze'];
  if (!exception) notAvailable.push('exception');
  return {
    dumpKind: state.dumpKind,
    dumpTimestamp: epochToIso(state.time),
    process,
    exception: analyzed,
    frames,
    modules: moduleSummary(state.modules, exception?.module),
    threadCount: state.threads.length,
    memory: { rangeCount: state.memory.rangeCount, totalBytes: state.memory.totalBytes },
    ...(state.clr === undefined ? {} : { clr: state.clr }),
    ...(stack?.cut === undefined ? {} : { walkCut: stack.cut }),
    ...(state.assertion === undefined ? {} : { assertion: state.assertion }),
    notAvailable,
    warnings: [...state.warnings, ...(stack?.warnings ?? []).map((w) => `stack walk: ${w}`)],
  };
}

function analyzeException(exception: ProcessException, state: ProcessState): AnalyzeException {
  return {
    code: hex32(exception.code),
    name: exception.name,
    address: hex(exception.address),
    threadId: exception.threadId,
    flags: hex(exception.flags),
    parameters: exception.parameters.map((p) => hex(p)),
    ...(exception.access?.kind === undefined ? {} : { accessType: exception.access.kind }),
    ...(exception.access === undefined ? {} : { accessAddress: hex(exception.access.address) }),
    ...(exception.registers === undefined || state.arch === null
      ? {}
      : { registers: registerText(exception.registers, state.arch) }),
    ...(exception.clr === undefined ? {} : { clr: exception.clr }),
  };
}

/** Not walked: the one frame we can name for sure is where the exception happened. */
function exceptionFrame(exception: ProcessException): AnalyzeFrame {
  const module = exception.module;
  const moduleOffset = module === undefined ? undefined : hex(exception.address - module.base);
  const symbol = exception.symbol;
  return {
    ...(module === undefined ? {} : { module: stripExtension(module.name) }),
    ...(symbol === undefined ? {} : { function: symbol.function }),
    ...(symbol !== undefined
      ? { offset: hex(symbol.offset) }
      : moduleOffset === undefined
        ? {}
        : { offset: moduleOffset }),
    ...(symbol === undefined || moduleOffset === undefined ? {} : { moduleOffset }),
    ...(symbol?.file === undefined || symbol.line === undefined
      ? {}
      : { source: `${symbol.file} @ ${symbol.line}` }),
    address: hex(exception.address),
    trust: 'exception',
  };
}

/**
 * A walked frame as a record frame: `module!function+offset` parts (offset from the export when
 * named, else from the module base). Frame 0 of the exception context keeps trust `exception`
 * (it is the exception address); callers say how they were found (`cfi`, `scan-call`, …).
 */
export function analyzeFrame(frame: ProcessFrame, fromException = true): AnalyzeFrame {
  const out: AnalyzeFrame = {};
  if (frame.module !== undefined) out.module = stripExtension(frame.module.name);
  const moduleOffset = frame.moduleOffset === undefined ? undefined : hex(frame.moduleOffset);
  if (frame.symbol !== undefined) {
    out.function = frame.symbol.function;
    out.offset = hex(frame.symbol.offset);
  } else if (moduleOffset !== undefined) out.offset = moduleOffset;
  if (moduleOffset !== undefined) out.moduleOffset = moduleOffset;
  if (frame.symbol?.file !== undefined && frame.symbol.line !== undefined) {
    out.source = `${frame.symbol.file} @ ${frame.symbol.line}`;
  }
  out.address = hex(frame.address);
  out.stackPointer = hex(frame.stackPointer);
  // A dump without an exception walks its requesting thread from that thread's own context.
  out.trust =
    fromException && frame.index === 0 && frame.trust === 'context' ? 'exception' : frame.trust;
  return out;
}

/**
 * A walked frame as record frames: its inlined calls first (innermost first, `inline: true`, each
 * with its own name and line, the frame's address, stack pointer and trust), then the frame.
 */
export function analyzeFrames(frame: ProcessFrame, fromException = true): AnalyzeFrame[] {
  const real = analyzeFrame(frame, fromException);
  if (frame.inlines === undefined || frame.inlines.length === 0) return [real];
  const inline = frame.inlines.map((hit): AnalyzeFrame => {
    const out: AnalyzeFrame = {};
    if (real.module !== undefined) out.module = real.module;
    out.function = hit.function;
    out.offset = hex(hit.offset);
    if (real.moduleOffset !== undefined) out.moduleOffset = real.moduleOffset;
    if (hit.file !== undefined && hit.line !== undefined) out.source = `${hit.file} @ ${hit.line}`;
    if (real.address !== undefined) out.address = real.address;
    if (real.stackPointer !== undefined) out.stackPointer = real.stackPointer;
    if (real.trust !== undefined) out.trust = real.trust;
    out.inline = true;
    return out;
  });
  return [...inline, real];
}

export function moduleSummary(
  modules: readonly ProcessModule[],
  faulting: ProcessModule | undefined,
): AnalyzeModules {
  const withDebugId = modules.filter((m) => m.codeView?.debugId !== undefined).length;
  const summary: AnalyzeModules = {
    count: modules.length,
    withDebugId,
    withoutDebugId: modules.length - withDebugId,
    list: modules.map((m) =>
      m.fileVersion === undefined ? { name: m.name } : { name: m.name, fileVersion: m.fileVersion },
    ),
  };
  if (faulting) summary.faulting = moduleInfo(faulting);
  return summary;
}

export function moduleInfo(m: ProcessModule): AnalyzeModuleInfo {
  const debugId = m.codeView?.debugId;
  return {
    name: m.name,
    base: hex(m.base),
    path: m.path,
    timestamp: epochToIso(m.timestamp),
    timestampEpoch: m.timestamp,
    ...(m.fileVersion === undefined ? {} : { fileVersion: m.fileVersion }),
    ...(debugId === undefined ? {} : { debugId }),
  };
}

/** The script conditions this dump meets (see triage-script.ts). */
export function dumpFacts(dump: ProcessState): DumpFacts {
  const names = new Set(dump.modules.map((m) => m.name.toLowerCase()));
  return {
    exception: dump.exception !== null,
    full: dump.dumpKind === 'full',
    clr: names.has('clr.dll'),
    coreclr: names.has('coreclr.dll') || names.has('libcoreclr.so'),
  };
}

/** `kernelbase.dll` → `kernelbase`: frames name modules the way debuggers print them. */
export function stripExtension(name: string): string {
  return name.replace(/\.(dll|exe|sys|drv|ocx)$/i, '');
}
