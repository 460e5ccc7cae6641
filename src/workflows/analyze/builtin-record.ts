// What the dump alone says, as the fields of an analyze record: exception, process, modules,
// threads, memory, and the crashing thread's walked frames (or, not walked, one frame for the
// exception address, `module+0xoff`). This is the whole
// record for `--engine builtin`, and the starting point a debugger's answers are merged into for
// `cdb` and `winedbg` (the dump's own exception stream beats text parsed from a debugger).
import type { InspectedClr } from '../../processor/clr.js';
import type { InspectedFrame } from '../../processor/inspect-stacks.js';
import type { InspectedDumpOk, InspectedModule } from '../../processor/inspect.js';
import type {
  AnalyzeException,
  AnalyzeFrame,
  AnalyzeModuleInfo,
  AnalyzeModules,
  NotAvailable,
} from '../../report/analyze/analyze-record.js';
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
  notAvailable: NotAvailable[];
  warnings: string[];
}

export function builtinFields(dump: InspectedDumpOk): BuiltinFields {
  const exception = dump.exception;
  const analyzed: AnalyzeException | null = exception && {
    code: exception.code,
    name: exception.name,
    address: exception.address,
    threadId: exception.threadId,
    flags: exception.flags,
    parameters: exception.parameters,
    ...(exception.accessType === undefined ? {} : { accessType: exception.accessType }),
    ...(exception.accessAddress === undefined ? {} : { accessAddress: exception.accessAddress }),
    ...(exception.registers === undefined ? {} : { registers: exception.registers }),
    ...(exception.clr === undefined ? {} : { clr: exception.clr }),
  };
  const faultingModule =
    exception?.module === undefined
      ? undefined
      : dump.modules.find((m) => m.name === exception.module);
  const stack = dump.threads.find((t) => t.id === exception?.threadId)?.stack;
  const frames: AnalyzeFrame[] =
    stack !== undefined && stack.frames.length > 0 ? stack.frames.map(analyzeFrame) : [];
  if (exception && frames.length === 0) {
    // Not walked: the one frame we can name for sure is where the exception happened.
    frames.push({
      ...(exception.module === undefined ? {} : { module: stripExtension(exception.module) }),
      ...(exception.moduleOffset === undefined ? {} : { offset: exception.moduleOffset }),
      address: exception.address,
      trust: 'exception',
    });
  }
  const process: BuiltinFields['process'] = {};
  if (dump.process.name !== undefined) process.name = dump.process.name;
  if (dump.process.pid !== undefined) process.pid = dump.process.pid;
  const notAvailable: NotAvailable[] = ['frames.symbols', 'clrException', 'heapSummary', 'analyze'];
  if (!exception) notAvailable.push('exception');
  return {
    dumpKind: dump.dumpKind,
    dumpTimestamp: dump.dumpTimestamp,
    process,
    exception: analyzed,
    frames,
    modules: moduleSummary(dump.modules, faultingModule),
    threadCount: dump.threads.length,
    memory: { rangeCount: dump.memory.rangeCount, totalBytes: dump.memory.totalBytes },
    ...(dump.clr === undefined ? {} : { clr: dump.clr }),
    notAvailable,
    warnings: [...dump.warnings, ...(stack?.warnings ?? []).map((w) => `stack walk: ${w}`)],
  };
}

/**
 * A walked frame as a record frame: `module!function+offset` parts (offset from the export when
 * named, else from the module base). Frame 0 of the exception context keeps trust `exception`
 * (it is the exception address); callers say how they were found (`cfi`, `scan-call`, …).
 */
export function analyzeFrame(frame: InspectedFrame): AnalyzeFrame {
  const out: AnalyzeFrame = {};
  if (frame.module !== undefined) out.module = stripExtension(frame.module);
  if (frame.function !== undefined) out.function = frame.function;
  const offset = frame.function !== undefined ? frame.functionOffset : frame.moduleOffset;
  if (offset !== undefined) out.offset = offset;
  if (frame.moduleOffset !== undefined) out.moduleOffset = frame.moduleOffset;
  if (frame.file !== undefined && frame.line !== undefined) {
    out.source = `${frame.file} @ ${frame.line}`;
  }
  out.address = frame.address;
  out.stackPointer = frame.stackPointer;
  out.trust = (
    frame.index === 0 && frame.trust === 'context' ? 'exception' : frame.trust
  ) as NonNullable<AnalyzeFrame['trust']>;
  return out;
}

export function moduleSummary(
  modules: readonly InspectedModule[],
  faulting: InspectedModule | undefined,
): AnalyzeModules {
  const withDebugId = modules.filter((m) => m.debugId !== undefined).length;
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

export function moduleInfo(m: InspectedModule): AnalyzeModuleInfo {
  return {
    name: m.name,
    base: m.base,
    path: m.path,
    timestamp: m.timestamp,
    timestampEpoch: m.timestampEpoch,
    ...(m.fileVersion === undefined ? {} : { fileVersion: m.fileVersion }),
    ...(m.debugId === undefined ? {} : { debugId: m.debugId }),
  };
}

/** The script conditions this dump meets (see triage-script.ts). */
export function dumpFacts(dump: InspectedDumpOk): DumpFacts {
  const names = new Set(dump.modules.map((m) => m.name.toLowerCase()));
  return {
    exception: dump.exception !== null,
    full: dump.kind === 'full',
    clr: names.has('clr.dll'),
    coreclr: names.has('coreclr.dll') || names.has('libcoreclr.so'),
  };
}

/** `kernelbase.dll` → `kernelbase`: frames name modules the way debuggers print them. */
export function stripExtension(name: string): string {
  return name.replace(/\.(dll|exe|sys|drv|ocx)$/i, '');
}
