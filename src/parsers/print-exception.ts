// SOS `!pe` / `!PrintException` / `pe` / `printexception` (cdb and dotnet-dump alike): one block of
// `Key: value` lines per exception; with `-nested` the outer exception comes first and every
// nested one follows a `Nested exception ----…` separator.
import { defineParser, SOS_PREFIX } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { normalizeCode, normalizeHex } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface ManagedStackFrame {
  sp?: Hex;
  ip?: Hex;
  function: string;
  /** `pe -lines`: the `[file @ line]` text, brackets removed (not part of `function`). */
  source?: string;
}

export interface ManagedException {
  address: Hex | null;
  type: string;
  message: string | null;
  innerException: null | { type: string; address?: Hex };
  stack: ManagedStackFrame[];
  stackTraceString: string | null;
  hresult: Hex | null;
  /** True for the exceptions after a `Nested exception ----` separator (`!pe -nested`). */
  nested?: boolean;
}

export interface PrintExceptionRecord extends RecordBase {
  exceptions: ManagedException[];
  noException: boolean;
  /** `There are nested exceptions on this thread. Run with -nested for details` */
  nestedExceptionsOmitted?: boolean;
}

// 0:000> !pe -nested      > pe -lines
const COMMAND_RE = /^!?(?:pe|printexception)\b/i;
// Exception object: 02653c80
// Exception type:   System.UnauthorizedAccessException
// Message:          Access to the path 'C:\Windows\private.txt' is denied.
// InnerException:   <none>
// StackTrace (generated):
// StackTraceString: <none>
// HResult: 80070005
const FIELD_RE =
  /^\s*(Exception object|Exception type|Message|InnerException|StackTrace \(generated\)|StackTraceString|HResult):\s?(.*)$/;
// InnerException:   System.Net.WebException, Use !PrintException a902fae5 to see more.
// InnerException:   System.FormatException, Use printexception 00007F4BE180DB10 to see more.
//   (dotnet-dump 10, test/fixtures/transcripts/dotnet-dump/pe-current-widget-inner-format-linux-net10.txt)
const INNER_RE = /^(.*?),\s*Use !?PrintException ([0-9a-f`]+) to see more\.?\s*$/i;
// Nested exception -------------------------------------------------------------
const NESTED_RE = /^\s*Nested exception\s*-+\s*$/i;
//     SP       IP       Function
// SP               IP               Function
const STACK_HEADER_RE = /^\s*SP\s+IP\s+Function\s*$/i;
//     004FEDC4 6D1CCC60 mscorlib_ni!System.IO.__Error.WinIOError(Int32, System.String)+0xc04910
const STACK_ROW_RE = /^\s*([0-9a-f`]{8,17})\s+([0-9a-f`]{8,17})\s+(\S.*)$/i;
// …Program.Foo4(System.String)+0x15d [/home/mikem/builds/SymbolTestApp/SymbolTestApp/SymbolTestApp.cs @ 54]
const SOURCE_RE = /\s\[([^[\]]* @ \d+)\]\s*$/;
// There is no current managed exception on this thread
const NO_EXCEPTION_RE = /^\s*There is no current managed exception on this thread/i;
// There are nested exceptions on this thread. Run with -nested for details
const NESTED_NOTICE_RE = /^\s*There are nested exceptions on this thread\b/i;

type Field = 'message' | 'stack' | 'stackTraceString' | 'none';

export function parsePrintException(text: string): PrintExceptionRecord {
  const warnings = createWarningList();
  const record: PrintExceptionRecord = { exceptions: [], noException: false, warnings: [] };
  let current: ManagedException | null = null;
  let nextIsNested = false;
  // The field whose text may continue on the next lines (messages and stack trace strings can
  // hold line breaks), or the generated stack whose rows follow.
  let open: Field = 'none';

  const begin = (): ManagedException => {
    const exception: ManagedException = {
      address: null,
      type: '',
      message: null,
      innerException: null,
      stack: [],
      stackTraceString: null,
      hresult: null,
    };
    if (nextIsNested) exception.nested = true;
    record.exceptions.push(exception);
    return exception;
  };

  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r/g, '');
    if (line.trim().length === 0) {
      open = 'none';
      continue;
    }
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;

    const field = FIELD_RE.exec(line);
    if (field) {
      const key = field[1] ?? '';
      const value = (field[2] ?? '').trim();
      // A block starts at `Exception object:`; a block whose first line was lost starts anywhere.
      if (key === 'Exception object' || current === null) current = begin();
      open = 'none';
      switch (key) {
        case 'Exception object':
          current.address = normalizeHex(value);
          if (current.address === null && value !== '') warnings.add(`bad address: ${value}`);
          break;
        case 'Exception type':
          current.type = value;
          break;
        case 'Message':
          current.message = noneToNull(value);
          open = 'message';
          break;
        case 'InnerException':
          current.innerException = innerException(value);
          break;
        case 'StackTrace (generated)':
          open = 'stack';
          break;
        case 'StackTraceString':
          current.stackTraceString = noneToNull(value);
          open = 'stackTraceString';
          break;
        case 'HResult':
          current.hresult = normalizeCode(value);
          if (current.hresult === null) warnings.add(`bad HResult: ${value}`);
          break;
      }
      continue;
    }
    if (NESTED_RE.test(line)) {
      nextIsNested = true;
      current = null;
      open = 'none';
      continue;
    }
    if (NO_EXCEPTION_RE.test(line)) {
      record.noException = true;
      continue;
    }
    if (NESTED_NOTICE_RE.test(line)) {
      record.nestedExceptionsOmitted = true;
      continue;
    }
    if (current !== null && open === 'stack') {
      if (line.trim() === '<none>' || STACK_HEADER_RE.test(line)) continue;
      const row = STACK_ROW_RE.exec(line);
      const frame = row ? stackFrame(row) : null;
      if (frame) {
        current.stack.push(frame);
        continue;
      }
    }
    if (current !== null && open === 'message' && current.message !== null) {
      current.message += `\n${line.trim()}`;
      continue;
    }
    if (current !== null && open === 'stackTraceString') {
      current.stackTraceString =
        current.stackTraceString === null
          ? line.trim()
          : `${current.stackTraceString}\n${line.trim()}`;
      continue;
    }
    warnings.add(unplaced(line));
  }
  record.warnings = warnings.list();
  return record;
}

function noneToNull(value: string): string | null {
  return value === '' || value === '<none>' ? null : value;
}

function innerException(value: string): ManagedException['innerException'] {
  if (value === '' || value === '<none>') return null;
  const m = INNER_RE.exec(value);
  if (m) {
    const address = normalizeHex(m[2] ?? '');
    const type = (m[1] ?? '').trim();
    return address === null ? { type } : { type, address };
  }
  return { type: value };
}

function stackFrame(row: RegExpExecArray): ManagedStackFrame | null {
  const sp = normalizeHex(row[1] ?? '');
  const ip = normalizeHex(row[2] ?? '');
  if (sp === null || ip === null) return null;
  let fn = (row[3] ?? '').trim();
  const frame: ManagedStackFrame = { sp, ip, function: fn };
  const source = SOURCE_RE.exec(fn);
  if (source) {
    fn = fn.slice(0, source.index).trimEnd();
    frame.function = fn;
    frame.source = source[1] ?? '';
  }
  return frame;
}

export const printExceptionDescriptor = defineParser({
  kind: 'printException',
  commands: [
    // !pe -nested, !sos.printexception, pe -lines (dotnet-dump analyze)
    new RegExp(`^${SOS_PREFIX}(?:pe|printexception)(?:\\s|$)`, 'i'),
  ],
  parse: (text) => parsePrintException(text),
  summary: (record) =>
    record.noException
      ? ['no current managed exception']
      : record.exceptions.map((e) => `${e.type}: ${e.message ?? ''} (${e.hresult ?? '?'})`),
});
