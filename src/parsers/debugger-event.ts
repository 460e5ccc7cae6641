// Debugger event banners: the lines a debugger prints when the target stops on an exception
// (cdb: `(pid.tid): <description> - code <code> (first chance)`; winedbg: `First chance
// exception: <what> in 64-bit code (0x…).`). The engine calls findDebuggerEvents to classify
// every stop, so this file must stay fast and must never throw.
import { defineParser } from './descriptor.js';
import { normalizeCode, normalizeHex, normalizeId, splitLines } from './text.js';
import type { Chance, Dialect, Hex, RecordBase } from './records.js';

export interface DebuggerEventRecord extends RecordBase {
  processId: Hex | null;
  threadId: Hex | null;
  description: string;
  code: Hex | null;
  chance: Chance;
  clrExceptionType?: string;
  clrExceptionMessage?: string;
  /** The exception address winedbg prints (`in 64-bit code (0x…)`); cdb banners have none. */
  address?: Hex;
  /** For access violations decoded from winedbg text: `read`, `write` or `execute` and the address. */
  accessType?: 'read' | 'write' | 'execute';
  accessAddress?: Hex;
}

// cdb banner with a `(pid.tid): ` prefix, found anywhere in a line (application output or a
// prompt can precede it on the same line):
//   (5fc4.6320): CLR exception - code e0434352 (!!! second chance !!!)
//   (1d18.19ec): Access violation - code c0000005 (first/second chance not available)
// The description is bounded so a long line full of `(a.b): ` cannot make the scan quadratic.
const CDB_PID_BANNER_RE =
  /\(([0-9a-f]{1,16})\.([0-9a-f]{1,16})\): ([^\r\n]{1,200}?) - code ([0-9a-f]{1,8}) \((first chance|!!! second chance !!!|first\/second chance not available)\)/i;

// Old NTSD banners have no `(pid.tid)` prefix, so they are only accepted at the start of a line:
//   Access violation - code c0000005 (!!! second chance !!!)
//   Break instruction exception - code 80000003 (first chance)
const CDB_BARE_BANNER_RE =
  /^\s*([A-Za-z][\w +.'/-]{0,80}?) - code ([0-9a-f]{1,8}) \((first chance|!!! second chance !!!|first\/second chance not available)\)\s*$/i;

// Newer debuggers (SOS from the extension gallery) add two lines after a CLR banner:
//   CLR exception type: System.FormatException
//       "One of the identified items was in an invalid format."
const CLR_TYPE_RE = /^\s*CLR exception type: (\S.{0,1000})$/;
const CLR_MESSAGE_START_RE = /^\s+"/;

// winedbg (programs/winedbg/info.c, info_win32_exception):
//   First chance exception: page fault on write access to 0x0000000000000010 in 64-bit code (0x0000014000157a).
//   Unhandled exception: page fault on write access to 0x0000000000000010 in 64-bit code (0x0000014000157a).
const WINE_EVENT_RE = /^\s*(First chance exception|Unhandled exception): (\S.{0,2000})$/;
// The tail naming where it happened: ` in 64-bit code (0x0000014000157a).` (also `in 32-bit
// code`, `in vm86 code (ssss:oooo)`, `in 16-bit code`, `in segmented 32-bit code`).
const WINE_WHERE_RE = / in (\d+-bit|vm86|segmented 32-bit) code \(([^()]{0,80})\)\.?\s*$/;
// `page fault on write access to 0x0000000000000010`
const WINE_PAGE_FAULT_RE = /^page fault on (read|write|execute) access to (0x[0-9a-f]+)/i;
// `C++ exception(object = 0x0000000000001111, type = 0x0000000000002222)`
const WINE_CXX_RE = /^C\+\+ exception[( ]/;
// Unknown codes are printed as `0x%08lx`: `0x20474343` (mingw C++ throw), `0xe0434f4d`.
const WINE_RAW_CODE_RE = /^(?:0x)?([0-9a-f]{8})\b/i;

/**
 * winedbg prints known exception codes by name, not number (winedbg 8.0 strings, info.c).
 * Longest names first so `floating point overflow` is not read as `overflow`.
 */
export const WINEDBG_EXCEPTION_NAMES: readonly { prefix: string; code: Hex }[] = [
  { prefix: 'floating point overflow', code: '0xc0000091' },
  { prefix: 'floating point underflow', code: '0xc0000093' },
  { prefix: 'floating point stack check', code: '0xc0000092' },
  { prefix: 'denormal float operand', code: '0xc000008d' },
  { prefix: 'inexact float result', code: '0xc000008f' },
  { prefix: 'invalid float operation', code: '0xc0000090' },
  { prefix: 'wait failed on critical section', code: '0xc0000194' },
  { prefix: 'unimplemented function', code: '0x80000100' },
  { prefix: 'assertion failed', code: '0x80000101' },
  { prefix: 'privileged instruction', code: '0xc0000096' },
  { prefix: 'priviledged instruction', code: '0xc0000096' },
  { prefix: 'illegal instruction', code: '0xc000001d' },
  { prefix: 'stack overflow', code: '0xc00000fd' },
  { prefix: 'divide by zero', code: '0xc0000094' },
  { prefix: 'array bounds', code: '0xc000008c' },
  { prefix: 'single step', code: '0x80000004' },
  { prefix: 'breakpoint', code: '0x80000003' },
  { prefix: 'page fault', code: '0xc0000005' },
  { prefix: 'Alignment', code: '0x80000002' },
  { prefix: 'overflow', code: '0xc0000095' },
  { prefix: 'C++ exception', code: '0xe06d7363' },
  { prefix: '^C', code: '0x40010005' },
];

function chanceOf(text: string): Chance {
  const lower = text.toLowerCase();
  if (lower === 'first chance') return 'first';
  if (lower === '!!! second chance !!!') return 'second';
  return null;
}

function cdbEvent(
  processId: string | undefined,
  threadId: string | undefined,
  description: string,
  code: string,
  chance: string,
): DebuggerEventRecord {
  return {
    processId: processId === undefined ? null : normalizeId(processId),
    threadId: threadId === undefined ? null : normalizeId(threadId),
    description: description.trim(),
    code: normalizeCode(code),
    chance: chanceOf(chance),
    warnings: [],
  };
}

/** Reads one cdb banner line, or null when the line holds none. */
function matchCdbBanner(line: string): DebuggerEventRecord | null {
  if (!line.includes(' - code ')) return null;
  if (/^\s*Last event:/.test(line)) return null; // `.lastevent` output, not a stop
  const withPid = CDB_PID_BANNER_RE.exec(line);
  if (withPid) {
    const [, pid, tid, description, code, chance] = withPid;
    return cdbEvent(pid, tid, description ?? '', code ?? '', chance ?? '');
  }
  const bare = CDB_BARE_BANNER_RE.exec(line);
  if (bare) {
    const [, description, code, chance] = bare;
    return cdbEvent(undefined, undefined, description ?? '', code ?? '', chance ?? '');
  }
  return null;
}

/** Maps winedbg's exception text (after `First chance exception: `) to a code. */
export function winedbgCodeFor(what: string): Hex | null {
  for (const { prefix, code } of WINEDBG_EXCEPTION_NAMES) {
    if (what.startsWith(prefix)) return code;
  }
  const raw = WINE_RAW_CODE_RE.exec(what);
  return raw?.[1] === undefined ? null : normalizeCode(raw[1]);
}

/** Reads one winedbg exception line, or null when the line holds none. */
function matchWinedbgEvent(line: string): DebuggerEventRecord | null {
  if (!line.includes(' exception: ')) return null;
  const match = WINE_EVENT_RE.exec(line);
  if (!match) return null;
  const [, kind, rest = ''] = match;
  let what = rest.trim();
  let address: Hex | null = null;
  const where = WINE_WHERE_RE.exec(what);
  if (where) {
    address = normalizeHex(where[2] ?? '');
    what = what.slice(0, where.index).trim();
  } else {
    what = what.replace(/\.$/, '');
  }
  what = what.replace(/, invalid program stack$/, '');
  const event: DebuggerEventRecord = {
    processId: null,
    threadId: null,
    description: what,
    code: winedbgCodeFor(what),
    chance: kind === 'First chance exception' ? 'first' : 'second',
    warnings: [],
  };
  if (address !== null) event.address = address;
  const fault = WINE_PAGE_FAULT_RE.exec(what);
  if (fault) {
    event.accessType = (fault[1] ?? 'read').toLowerCase() as 'read' | 'write' | 'execute';
    const accessAddress = normalizeHex(fault[2] ?? '');
    if (accessAddress !== null) event.accessAddress = accessAddress;
  }
  if (event.code === null) event.warnings.push(`unknown winedbg exception text: ${what}`);
  else if (WINE_CXX_RE.test(what)) event.code = '0xe06d7363';
  return event;
}

/**
 * After a CLR banner, newer debuggers print the managed type and, indented and quoted, the
 * message. Returns how many lines after `index` belonged to the event.
 */
function readClrDetails(
  lines: readonly string[],
  index: number,
  event: DebuggerEventRecord,
): number {
  let next = index + 1;
  const typeLine = lines[next];
  const type = typeLine === undefined ? null : CLR_TYPE_RE.exec(typeLine);
  if (!type?.[1]) return 0;
  event.clrExceptionType = type[1].trim();
  next++;
  const first = lines[next];
  if (first === undefined || !CLR_MESSAGE_START_RE.test(first)) return 1;
  // The message is quoted and may run over several lines; stop at the closing quote (and never
  // read more than a screenful, so a missing quote cannot swallow the rest of the log).
  const parts: string[] = [];
  for (let i = next; i < lines.length && i < next + 50; i++) {
    const part = lines[i] ?? '';
    parts.push(i === next ? part.trim() : part);
    if (part.trimEnd().endsWith('"') && (i > next || part.trim().length > 1)) {
      const joined = parts.join('\n').trimEnd();
      event.clrExceptionMessage = joined.slice(1, -1);
      return 1 + (i - next + 1);
    }
  }
  event.clrExceptionMessage = (first.trim().slice(1) || '').trim();
  event.warnings.push('CLR exception message has no closing quote');
  return 2;
}

/**
 * Every event banner in `text`, in order. `dialect` limits the search to one debugger's format;
 * without it both are tried. Lines that are not banners (ModLoad, registers, notices) are skipped.
 */
export function findDebuggerEvents(text: string, dialect?: Dialect): DebuggerEventRecord[] {
  const events: DebuggerEventRecord[] = [];
  const lines = splitLines(text);
  const cdb = dialect !== 'winedbg';
  const wine = dialect !== 'cdb';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.length === 0) continue;
    const event = (cdb ? matchCdbBanner(line) : null) ?? (wine ? matchWinedbgEvent(line) : null);
    if (!event) continue;
    events.push(event);
    if (cdb && event.code !== null) i += readClrDetails(lines, i, event);
  }
  return events;
}

/**
 * The first event banner in `text` as a record. Text with no banner still gives a record (the
 * contract: never throw), with the first line as description and a warning.
 */
export function parseDebuggerEvent(text: string): DebuggerEventRecord {
  const first = findDebuggerEvents(text)[0];
  if (first) return first;
  const line =
    splitLines(text)
      .find((l) => l.trim().length > 0)
      ?.trim() ?? '';
  return {
    processId: null,
    threadId: null,
    description: line,
    code: null,
    chance: null,
    warnings: ['no debugger event banner found'],
  };
}

export const debuggerEventDescriptor = defineParser({
  kind: 'debuggerEvent',
  commands: [],
  parse: (text) => parseDebuggerEvent(text),
  summary: (record) => [
    `${record.code ?? '?'} ${record.description} (${record.chance ?? 'n/a'} chance)`,
  ],
});
