// What a Linux core dump's record holds, from two sources: the file's own notes (process, thread
// count, the signal the process died of: common/elf-core.ts) and the replies of the triage batch,
// each read by the one parser of its command's kind (src/parsers/registry.ts): `threads`
// (threadList), `pe` (printException), `clrstack` (clrStack), `dumpheap -stat` (dumpHeapStat).
import type { ElfCoreFacts } from '../../engine/dialects/common/elf-core.js';
import { SIGNAL_NAMES } from '../../engine/dialects/common/elf-core.js';
import { parseClrStack } from '../../parsers/clr-stack.js';
import { parseDumpHeapStat } from '../../parsers/dump-heap-stat.js';
import { parsePrintException } from '../../parsers/print-exception.js';
import { parseThreadList } from '../../parsers/thread-list.js';
import type {
  AnalyzeDumpRecord,
  AnalyzeException,
  AnalyzeFrame,
  NotAvailable,
} from '../../report/analyze/analyze-record.js';
import { commandKind } from './debugger-fields.js';

/** The heap's types a record keeps, largest first (the whole reply is in its raw file). */
export const HEAP_TYPES_KEPT = 50;

/** The record fields the file's notes give. */
export function coreFacts(
  facts: ElfCoreFacts,
): Pick<AnalyzeDumpRecord, 'process' | 'exception'> & { threadCount?: number } {
  const process: AnalyzeDumpRecord['process'] = {};
  if (facts.processName !== undefined) process.name = facts.processName;
  if (facts.pid !== undefined) process.pid = facts.pid;
  return {
    process,
    exception: facts.signal === undefined ? null : signalException(facts.signal),
    ...(facts.threadCount > 0 ? { threadCount: facts.threadCount } : {}),
  };
}

/**
 * The signal as the record's exception: its number as the code, as Breakpad writes Linux crashes
 * into minidumps (MD_EXCEPTION_CODE_LIN_SIGABRT = 6 …,
 * https://chromium.googlesource.com/breakpad/breakpad/+/refs/heads/main/src/google_breakpad/common/minidump_exception_linux.h)
 * and rust-minidump reads them back (`CrashReason::LinuxGeneral`).
 */
export function signalException(signal: number): AnalyzeException {
  return {
    code: `0x${signal.toString(16).padStart(8, '0')}`,
    name: SIGNAL_NAMES[signal] ?? `signal ${signal}`,
  };
}

/** Folds one command's reply into the record, by the kind of its command. */
export function absorbCoreOutput(record: AnalyzeDumpRecord, command: string, output: string): void {
  switch (commandKind(command)) {
    case 'threadList': {
      const list = parseThreadList(output);
      if (list.threads.length > 0) record.threadCount = list.threads.length;
      const current = list.threads.find((t) => t.current);
      if (record.exception !== null && current !== undefined) {
        record.exception.threadId = current.osThreadId;
      }
      note(record, command, list.warnings);
      return;
    }
    case 'printException': {
      const pe = parsePrintException(output);
      if (!pe.noException && pe.exceptions.length > 0) record.clrException = pe;
      note(record, command, pe.warnings);
      return;
    }
    case 'clrStack': {
      const stack = parseClrStack(output);
      record.clrStack = stack;
      const frames = stack.threads[0]?.frames ?? [];
      // Helper frames (`[InlinedCallFrame: …]`, `[SoftwareExceptionFrame: …]`) are the runtime's
      // transitions, not code: the record's frames are the methods.
      record.frames = frames
        .filter((f) => f.frameType === undefined && f.callSite !== '')
        .map((f): AnalyzeFrame => ({
          function: f.callSite,
          ...(f.module === undefined ? {} : { module: f.module }),
          ...(f.ip === undefined ? {} : { address: f.ip }),
          ...(f.source === undefined ? {} : { source: f.source }),
          trust: 'debugger',
        }));
      return;
    }
    case 'dumpHeapStat': {
      const heap = parseDumpHeapStat(output);
      const types = [...heap.types].sort((a, b) => b.totalSize - a.totalSize);
      record.dumpHeapStat = {
        ...heap,
        types: types.slice(0, HEAP_TYPES_KEPT),
        typeCount: heap.typeCount ?? heap.types.length,
      };
      return;
    }
    default:
      return;
  }
}

function note(record: AnalyzeDumpRecord, command: string, warnings: readonly string[]): void {
  for (const w of warnings.slice(0, 5)) record.warnings.push(`${command}: ${w}`);
}

/** What the finished core record could not say (a core has no native heap summary). */
export function coreNotAvailable(record: AnalyzeDumpRecord): NotAvailable[] {
  const missing: NotAvailable[] = [];
  if (record.exception === null) missing.push('exception');
  if (record.frames.length === 0) missing.push('frames');
  if (record.clrException === undefined) missing.push('clrException');
  missing.push('heapSummary', 'analyze', 'modules.versions');
  return missing;
}
