// Turns the outputs of a triage script into analyze-record fields, by command: each command's
// text goes to the one parser for its kind (records.md), never to a guess. The dump's own
// exception stream (read by the builtin reader first) stays the authority for the exception; the
// debugger adds what the dump cannot say alone: symbolized frames, chance (cdb), !analyze's keys,
// the CLR exception and the heap summary.
import { parseAnalyze } from '../../parsers/analyze.js';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import { parseExceptionRecord } from '../../parsers/exception-record.js';
import { parseExtensionLoad } from '../../parsers/extension-load.js';
import { parseHeapSummary } from '../../parsers/heap-summary.js';
import { parseLastEvent } from '../../parsers/last-event.js';
import { parsePrintException } from '../../parsers/print-exception.js';
import { lookupChain } from '../../parsers/registry.js';
import { parseStack } from '../../parsers/stack.js';
import type {
  AnalyzeRecord,
  HeapSummaryRecord,
  PrintExceptionRecord,
  RecordKind,
  StackFrame,
} from '../../parsers/records.js';
import type {
  AnalyzeException,
  AnalyzeFrame,
  AnalyzeKeyFields,
  NotAvailable,
} from '../../report/analyze/analyze-record.js';
import type { BuiltinFields } from './builtin-record.js';
import { chooseFrames } from './frame-baseline.js';

/**
 * The record kind a triage command's output is parsed as, from the parsers' own command table
 * (src/parsers/registry.ts, the one `cdb-harness parse` uses): `.lastevent`, `.exr -1`, `kn 50`,
 * `~#kb`, `!analyze -v`, `.loadby sos clr`, `!pe`, `!heap -s`, `info exception`, `bt`. 'other'
 * when no parser reads it (`.ecxr`).
 */
export function commandKind(command: string): RecordKind | 'other' {
  return lookupChain(command)?.kind ?? 'other';
}

export interface CommandOutput {
  command: string;
  output: string;
}

export interface DebuggerFields {
  exception: AnalyzeException | null;
  frames: AnalyzeFrame[];
  /** Whose frames `frames` holds once a stack command was read (the builtin walk's until then). */
  framesFrom?: 'debugger' | 'builtin';
  clrException?: PrintExceptionRecord;
  heapSummary?: HeapSummaryRecord;
  analyze?: AnalyzeKeyFields;
  processName?: string;
  /** Set after a `.loadby`/`.load`: whether the extension loaded (for `?managed` steps). */
  sosLoaded: boolean;
  notAvailable: NotAvailable[];
  warnings: string[];
}

/** Folds one command's output into `fields` (called as each command finishes). */
export function absorbOutput(
  fields: DebuggerFields,
  out: CommandOutput,
  dialect: DialectName,
): void {
  const kind = commandKind(out.command);
  switch (kind) {
    case 'lastEvent': {
      const debuggerDialect = getDialect(dialect);
      if (!debuggerDialect.abilities.chanceInDumps) {
        // winedbg repeats its event banner and says "First chance exception" for every dump (the
        // minidump exception stream has no chance flag): only the code and access details count.
        const event = debuggerDialect.findEvents(out.output)[0];
        if (event?.code && fields.exception === null) {
          fields.exception = {
            code: event.code,
            name: event.description,
            ...(event.address === undefined ? {} : { address: event.address }),
            ...(event.accessType === undefined ? {} : { accessType: event.accessType }),
            ...(event.accessAddress === undefined ? {} : { accessAddress: event.accessAddress }),
          };
        }
        return;
      }
      const last = parseLastEvent(out.output);
      if (fields.exception !== null && last.chance != null && last.code === fields.exception.code) {
        fields.exception.chance = last.chance;
      } else if (fields.exception === null && last.code !== undefined) {
        fields.exception = {
          code: last.code,
          name: last.description,
          ...(last.threadId === undefined ? {} : { threadId: last.threadId }),
          ...(last.chance == null ? {} : { chance: last.chance }),
        };
      }
      return;
    }
    case 'exceptionRecord': {
      const exr = parseExceptionRecord(out.output);
      if (fields.exception === null && exr.code !== null) {
        fields.exception = {
          code: exr.code,
          name: exr.description ?? exr.code,
          ...(exr.address === null ? {} : { address: exr.address }),
          parameters: exr.parameters,
        };
      }
      return;
    }
    case 'stack': {
      const stack = parseStack(out.output);
      const frames = stack.threads[0]?.frames ?? [];
      // The first stack command wins: later ones (e.g. `~*k`) are for people, not the signature.
      if (frames.length > 0 && fields.framesFrom !== 'debugger') {
        takeFrames(fields, frames.map(toAnalyzeFrame));
      }
      for (const w of stack.warnings) fields.warnings.push(`${out.command}: ${w}`);
      return;
    }
    case 'analyze': {
      // An engine without ext.dll (the NuGet Debugger Engine package carries no extensions;
      // test/fixtures/transcripts/dbgeng/analyze-av-write-minidump.txt) has no !analyze:
      //   No export analyze found
      if (/^No export analyze found/m.test(out.output)) return;
      const analyzed = parseAnalyze(out.output);
      fields.analyze = keyFields(analyzed);
      if (analyzed.processName !== undefined) fields.processName = analyzed.processName;
      if (fields.framesFrom !== 'debugger' && analyzed.stackFrames.length > 0) {
        takeFrames(fields, analyzed.stackFrames.map(toAnalyzeFrame));
      }
      return;
    }
    case 'extensionLoad':
      // Any load that worked counts: the triage script tries `.loadby sos coreclr`, then `.load sos`.
      fields.sosLoaded = parseExtensionLoad(out.output).success || fields.sosLoaded;
      return;
    case 'printException': {
      const pe = parsePrintException(out.output);
      if (!pe.noException && pe.exceptions.length > 0) fields.clrException = pe;
      return;
    }
    case 'heapSummary': {
      const heap = parseHeapSummary(out.output);
      if (heap.heaps.length > 0) fields.heapSummary = heap;
      return;
    }
    default:
      // Kinds the analyze record has no field for (`!clrstack`, `info share`) and 'other'.
      return;
  }
}

/**
 * The debugger's frames replace the processor's walk only when they are at least as good
 * (frame-baseline.ts): a debugger enriches the record, never degrades it.
 */
function takeFrames(fields: DebuggerFields, frames: AnalyzeFrame[]): void {
  const chosen = chooseFrames(frames, fields.frames);
  fields.frames = chosen.frames;
  fields.framesFrom = chosen.from;
  if (chosen.note !== undefined) fields.warnings.push(chosen.note);
}

export function emptyDebuggerFields(base: BuiltinFields): DebuggerFields {
  return {
    exception: base.exception === null ? null : { ...base.exception },
    frames: base.frames.map((f) => ({ ...f })),
    sosLoaded: false,
    notAvailable: [],
    warnings: [],
  };
}

/** What the finished script did not produce, for the record's `notAvailable`. */
export function missingFields(fields: DebuggerFields, dialect: DialectName): NotAvailable[] {
  const missing: NotAvailable[] = [];
  if (fields.exception === null) missing.push('exception');
  if (fields.frames.length === 0) missing.push('frames');
  else if (!fields.frames.some((f) => f.function !== undefined)) missing.push('frames.symbols');
  if (fields.clrException === undefined) missing.push('clrException');
  if (fields.heapSummary === undefined) missing.push('heapSummary');
  if (fields.analyze === undefined || !getDialect(dialect).abilities.crashAnalysis) {
    missing.push('analyze');
  }
  return [...new Set(missing)];
}

function toAnalyzeFrame(frame: StackFrame): AnalyzeFrame {
  const out: AnalyzeFrame = {};
  if (frame.module !== undefined) out.module = frame.module;
  if (frame.function !== undefined) out.function = frame.function;
  if (frame.offset !== undefined) out.offset = frame.offset;
  const address = frame.ip ?? frame.returnAddress;
  if (address !== undefined) out.address = address;
  if (frame.source !== undefined) out.source = frame.source;
  if (frame.inline === true) out.inline = true;
  // A bare address call site (`0x10`, no module) is kept as the address.
  if (out.module === undefined && out.function === undefined && out.address === undefined) {
    if (/^0x[0-9a-f]+$/.test(frame.callSite)) out.address = frame.callSite;
    else if (frame.callSite !== '') out.function = frame.callSite;
  }
  return out;
}

function keyFields(a: AnalyzeRecord): AnalyzeKeyFields {
  const out: AnalyzeKeyFields = {};
  if (a.failureBucketId !== undefined) out.failureBucketId = a.failureBucketId;
  if (a.bucketId !== undefined) out.bucketId = a.bucketId;
  if (a.symbolName !== undefined) out.symbolName = a.symbolName;
  if (a.moduleName !== undefined) out.moduleName = a.moduleName;
  if (a.imageName !== undefined) out.imageName = a.imageName;
  if (a.faultingFrame !== undefined) out.faultingFrame = a.faultingFrame;
  if (a.processName !== undefined) out.processName = a.processName;
  if (a.exceptionCode !== undefined) out.exceptionCode = a.exceptionCode;
  return out;
}
