// UMDH comparison reports (`umdh log1 log2`); the entries of a single snapshot log are read by
// umdh-log.ts.
// Every number umdh prints here is HEX: `Total increase ==  27000 requested +    9c0 overhead =  279c0`
// only adds up in hex, and the umdh legend's `BYTES_DELTA (NEW_BYTES - OLD_BYTES)` rows show
// `2a98c90`. Reports reach hundreds of megabytes, so the parsers (this one and umdh-log.ts) are
// line-fed objects that can hand each entry to `onEntry` instead of keeping it; the whole-text
// functions feed the same objects.
import { defineParser } from './descriptor.js';
import { feedText, keepsEntries, type LineParser, type StreamOptions } from './line-parser.js';
import {
  allocationEntryFrom,
  COMMAND_RE,
  ELISION_RE,
  hex,
  LEGEND_RE,
  LOG_ALLOCATION_RE,
  LOG_ENTRY_RE,
  logEntryFrom,
  type UmdhLogEntry,
} from './umdh-log.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { RecordBase } from './records.js';

// The snapshot-log parser lives in umdh-log.ts; these names stay importable from here.
export { createUmdhLogParser, parseUmdhLog, type UmdhLogParser } from './umdh-log.js';

export interface UmdhDiffEntry {
  backtrace: string;
  bytesDelta: number;
  newBytes: number;
  oldBytes: number;
  allocsDelta?: number;
  /** Allocation counts from the `COUNT_DELTA (NEW_COUNT - OLD_COUNT)` line. */
  newAllocs?: number;
  oldAllocs?: number;
  frames: string[];
}

export interface UmdhDiffRecord extends RecordBase {
  entries: UmdhDiffEntry[];
  /** `Total increase == 27000 requested + 9c0 overhead = 279c0`: the last figure (bytes). */
  totalIncrease?: number;
  totalDecrease?: number;
  totalIncreaseRequested?: number;
  totalIncreaseOverhead?: number;
  totalDecreaseRequested?: number;
  totalDecreaseOverhead?: number;
  /** Entries parsed, also when the caller streamed them out instead of keeping them. */
  entryCount?: number;
  /** umdh's own notices (`Warning: _NT_SYMBOL_PATH …`, `DBGHELP: …`), not placed in entries. */
  messages?: string[];
  /** Snapshot-style `N bytes in M allocations (@ S) by: BackTraceX` blocks quoted in the report. */
  logEntries?: UmdhLogEntry[];
  /** 10 when the comparison was printed with `umdh -d` (decimal numbers); absent: hex. */
  radix?: 10;
}

export interface UmdhDiffParserOptions extends StreamOptions<UmdhDiffEntry> {
  /**
   * `umdh -d log1 log2`: the entry and total lines are DECIMAL ("-d: displays numeric data in
   * decimal numbers; the default is hexadecimal", https://learn.microsoft.com/windows-hardware/
   * drivers/debugger/analyze-umdh-logs). Nothing in the text says so: the caller knows the command.
   */
  decimal?: boolean;
}

// + 2a98c90 ( 2a98c90 -     0)  15cf4 allocs	BackTrace74050
// -    2018 (     0 -  2018)      0 allocs	BackTrace73F28
// +   27000 ( 27000 -     0)     9c allocs        BackTrace1
const BYTES_LINE_RE =
  /^([+-])\s*([0-9a-f]+)\s*\(\s*([0-9a-f]+)\s*-\s*([0-9a-f]+)\s*\)\s*([0-9a-f]+)\s+allocs\s+(BackTrace\s*[0-9a-f]+)\s*$/i;
// +   15cf4 ( 15cf4 -     0)	BackTrace74050	allocations
// -       1 (     0 -     1)	BackTrace73F28	allocations
const COUNT_LINE_RE =
  /^([+-])\s*([0-9a-f]+)\s*\(\s*([0-9a-f]+)\s*-\s*([0-9a-f]+)\s*\)\s*(BackTrace\s*[0-9a-f]+)\s+allocations\s*$/i;
// Total increase ==  27000 requested +    9c0 overhead =  279c0
// Total decrease ==      0 requested +      0 overhead =      0
// Total increase == 5320            (older umdh: one figure; umdh/docs-interpreting-log-comparison-…)
// Total decrease == 487210 requested +   1654 overhead = 488864     (umdh -d: decimal)
const TOTAL_RE =
  /^\s*Total (increase|decrease)\s*==\s*([0-9a-f]+)(?:\s+requested\s*\+\s*([0-9a-f]+)\s+overhead\s*=\s*([0-9a-f]+))?\s*$/i;
/** The lines only a comparison report has (umdh-file-kind.ts tells the two outputs apart by them). */
export const COMPARISON_LINE_RES: readonly RegExp[] = [BYTES_LINE_RE, COUNT_LINE_RE, TOTAL_RE];
// Warning: _NT_SYMBOL_PATH variable is not defined. Will be set to %windir%\symbols.
// DBGHELP: ntdll - export symbols
const MESSAGE_RE = /^(?:Warning:|DBGHELP:|UMDH:)/i;
/** Char codes of the first characters that tell the line kinds apart. */
const CH = {
  plus: 43,
  minus: 45,
  dot: 46,
  slash: 47,
  digit0: 48,
  digit9: 57,
  gt: 62,
  D: 68,
  T: 84,
  U: 85,
  W: 87,
  u: 117,
} as const;
/** umdh's own notices kept in `messages`, at most this many. */
const MAX_MESSAGES = 200;

export type UmdhDiffParser = LineParser<UmdhDiffRecord>;

export function createUmdhDiffParser(options: UmdhDiffParserOptions = {}): UmdhDiffParser {
  const keep = keepsEntries(options);
  const num = options.decimal === true ? decimal : hex;
  const onEntry = options.onEntry;
  const warnings = createWarningList();
  const record: UmdhDiffRecord = {
    entries: [],
    entryCount: 0,
    warnings: [],
    ...(options.decimal === true ? { radix: 10 as const } : {}),
  };
  const messages: string[] = [];
  let entry: UmdhDiffEntry | null = null;
  // A snapshot-style block quoted inside a comparison (umdh/docs-diff-backtrace-block.txt).
  let logEntry: UmdhLogEntry | null = null;
  // `DBGHELP: host - private symbols & lines` continues on an indented line with the pdb path.
  let lastWasMessage = false;

  const close = (): void => {
    logEntry = null;
    if (entry === null) return;
    record.entryCount = (record.entryCount ?? 0) + 1;
    if (keep) record.entries.push(entry);
    onEntry?.(entry);
    entry = null;
  };
  const message = (text: string): void => {
    if (messages.length < MAX_MESSAGES) messages.push(text);
  };

  return {
    push(line: string): void {
      const first = line.charCodeAt(0);
      // '+' or '-' in column 0: an entry header line.
      if (first === CH.plus || first === CH.minus) {
        let m = BYTES_LINE_RE.exec(line);
        if (m) {
          close();
          entry = diffEntry(m, num);
          if (entry === null) warnings.add(`number out of range: ${line.trim()}`);
          lastWasMessage = false;
          return;
        }
        m = COUNT_LINE_RE.exec(line);
        if (m) {
          countLine(entry, m, line, warnings.add, num);
          lastWasMessage = false;
          return;
        }
      }
      const trimmed = line.trim();
      if (trimmed.length === 0) {
        // A blank line between the header lines and the stack (onecode) does not end the entry;
        // one after the frames (a TAB-only line in onecode) does.
        if ((entry ?? logEntry)?.frames.length) close();
        lastWasMessage = false;
        return;
      }
      // The other line kinds are told apart by their first character, so a frame line (most of a
      // big report) costs one character test per kind instead of one regex per kind.
      const lead = trimmed.charCodeAt(0);
      if (isHexDigit(lead) && line.includes(' bytes ')) {
        // A snapshot log's entry quoted with the comparison, in either layout.
        const m = LOG_ENTRY_RE.exec(line);
        const a = m === null ? LOG_ALLOCATION_RE.exec(line) : null;
        if (m !== null || a !== null) {
          close();
          logEntry =
            m !== null
              ? logEntryFrom(m, line, warnings.add)
              : a !== null
                ? allocationEntryFrom(a, line, warnings.add)
                : null;
          if (logEntry !== null) (record.logEntries ??= []).push(logEntry);
          lastWasMessage = false;
          return;
        }
      }
      if (lead === CH.T) {
        const total = TOTAL_RE.exec(line);
        if (total) {
          close();
          totalLine(record, total, num);
          lastWasMessage = false;
          return;
        }
      } else if ((lead === CH.W || lead === CH.D || lead === CH.U) && MESSAGE_RE.test(line)) {
        message(trimmed);
        lastWasMessage = true;
        return;
      }
      // An indented line after a notice continues it:
      //          c:\book\code\chapter_08\HeapLeak\ExeHeapLeak\objfre_win7_x86\i386\host.pdb
      if (lastWasMessage && entry === null && logEntry === null && first !== lead) {
        message(trimmed);
        return;
      }
      lastWasMessage = false;
      if (lead === CH.dot && ELISION_RE.test(line)) {
        close();
        warnings.add(`elided by the author: ${trimmed}`);
        return;
      }
      if (
        (lead === CH.slash && LEGEND_RE.test(line)) ||
        ((lead === CH.gt || lead === CH.u || lead === CH.U) && COMMAND_RE.test(line))
      ) {
        return;
      }
      const open = entry ?? logEntry;
      if (open !== null) {
        //         ntdll!RtlAllocateHeap+00000274
        // <TAB>CppResourceLeaks!LeakHeapMemory+00000083 (...\cppresourceleaks.cpp, 228)
        open.frames.push(trimmed);
        return;
      }
      warnings.add(unplaced(line));
    },
    finish(): UmdhDiffRecord {
      close();
      if (messages.length > 0) record.messages = messages;
      record.warnings = warnings.list();
      return record;
    },
  };
}

export function parseUmdhDiff(text: string, options: { decimal?: boolean } = {}): UmdhDiffRecord {
  return feedText(createUmdhDiffParser(options), text);
}

type NumberReader = (digits: string | undefined) => number | null;

/** A decimal number `umdh -d` printed, or null. */
function decimal(digits: string | undefined): number | null {
  if (digits === undefined || !/^\d+$/.test(digits)) return null;
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : null;
}

/** 0-9, A-F, a-f: the first character of a log entry's hex byte count. */
function isHexDigit(code: number): boolean {
  return (
    (code >= CH.digit0 && code <= CH.digit9) ||
    (code >= 65 && code <= 70) ||
    (code >= 97 && code <= 102)
  );
}

function diffEntry(m: RegExpExecArray, num: NumberReader): UmdhDiffEntry | null {
  const sign = m[1] === '-' ? -1 : 1;
  const delta = num(m[2]);
  const newBytes = num(m[3]);
  const oldBytes = num(m[4]);
  const newAllocs = num(m[5]);
  if (delta === null || newBytes === null || oldBytes === null || newAllocs === null) return null;
  return {
    backtrace: (m[6] ?? '').replace(/\s+/g, ''),
    bytesDelta: sign * delta,
    newBytes,
    oldBytes,
    newAllocs,
    frames: [],
  };
}

function countLine(
  entry: UmdhDiffEntry | null,
  m: RegExpExecArray,
  line: string,
  warn: (text: string) => void,
  num: NumberReader,
): void {
  const backtrace = (m[5] ?? '').replace(/\s+/g, '');
  const delta = num(m[2]);
  const newAllocs = num(m[3]);
  const oldAllocs = num(m[4]);
  if (entry === null || entry.backtrace !== backtrace || entry.frames.length > 0) {
    warn(`allocation count line without its bytes line: ${line.trim()}`);
    return;
  }
  if (delta === null || newAllocs === null || oldAllocs === null) {
    warn(`number out of range: ${line.trim()}`);
    return;
  }
  entry.allocsDelta = (m[1] === '-' ? -1 : 1) * delta;
  entry.newAllocs = newAllocs;
  entry.oldAllocs = oldAllocs;
}

function totalLine(record: UmdhDiffRecord, m: RegExpExecArray, num: NumberReader): void {
  const increase = (m[1] ?? '').toLowerCase() === 'increase';
  const first = num(m[2]);
  const overhead = num(m[3]);
  const total = m[4] === undefined ? first : num(m[4]);
  if (total === null) return;
  if (increase) {
    record.totalIncrease = total;
    if (m[4] !== undefined && first !== null) record.totalIncreaseRequested = first;
    if (overhead !== null) record.totalIncreaseOverhead = overhead;
  } else {
    record.totalDecrease = total;
    if (m[4] !== undefined && first !== null) record.totalDecreaseRequested = first;
    if (overhead !== null) record.totalDecreaseOverhead = overhead;
  }
}

export const umdhDiffDescriptor = defineParser({
  kind: 'umdhDiff',
  commands: [
    // umdh log1.txt log2.txt, umdh.exe -d log1.txt log2.txt (two logs compared; not a -p: snapshot)
    /^umdh(?:\.exe)?(?:\s(?!.*-pn?:)|$)/i,
  ],
  // `-d` anywhere on the line (`umdh log1.txt log2.txt > cmp.txt -d`): decimal numbers.
  parse: (text, command) =>
    parseUmdhDiff(text, { decimal: /(?:^|\s)-d(?:\s|$)/i.test(command ?? '') }),
  summary: (record) => [`${record.entries.length} backtrace(s)`],
});
