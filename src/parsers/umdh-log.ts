// UMDH snapshot logs (`umdh -p:PID -f:log.txt`): one entry per allocation stack, its byte count
// in HEX, the allocation count and size, then the stack's frames. Comparison reports quote the same
// entry shape, so umdh.ts reads those lines with the helpers exported here.
import { defineParser } from './descriptor.js';
import { feedText, keepsEntries, type LineParser, type StreamOptions } from './line-parser.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { RecordBase } from './records.js';

export interface UmdhLogEntry {
  backtrace: string;
  bytes: number;
  allocs?: number;
  /** `(@ 0x00000428)`: bytes per allocation. */
  allocationSize?: number;
  /** Newer logs, one allocation per entry: `30 bytes + 30 at 206EDDA8BA0`: the heap's overhead. */
  overhead?: number;
  /** …and the allocation's address (`0x` + lower-case hex). */
  address?: string;
  /**
   * As printed: `ntdll!RtlAllocateHeap+00000274` with symbols, a bare return address
   * (`7FFE82352933`, `77D27AE4`) when umdh had none for the module.
   */
  frames: string[];
}

export interface UmdhLogRecord extends RecordBase {
  entries: UmdhLogEntry[];
  entryCount?: number;
}

// 00005320 bytes in 0x14 allocations (@ 0x00000428) by: BackTrace00B53
// (umdh/docs-diff-backtrace-block.txt: the entry of BackTrace00B53 as the snapshot log prints it.)
export const LOG_ENTRY_RE =
  /^\s*([0-9a-f]+) bytes in (0x[0-9a-f]+|\d+) allocations \(@ (0x[0-9a-f]+)\) by:\s*(BackTrace\S+)\s*$/i;
// 30 bytes + 30 at 206EDDA8BA0 by BackTraceEDD4EEA6      (newer logs: one allocation per entry,
// C6 bytes + 1A at 56004C0 by BackTrace3965308           umdh/mahdytech-…, umdh/cn-note-…)
export const LOG_ALLOCATION_RE =
  /^\s*([0-9a-f]+) bytes \+ ([0-9a-f]+) at ([0-9a-f]+) by:?\s*(BackTrace\S+)\s*$/i;
// // Each log entry has the following syntax:
export const LEGEND_RE = /^\s*\/\//;
// > umdh.exe log1.txt log2.txt
export const COMMAND_RE = /^\s*(?:>\s*)?umdh(?:\.exe)?(?:\s|$)/i;
// ...   (an author's elision)
export const ELISION_RE = /^\s*\.{3,}\s*$/;

/** A hex number umdh printed, or null when it is not one or too big to be exact. */
export function hex(digits: string | undefined): number | null {
  if (digits === undefined || digits.length === 0) return null;
  const n = Number.parseInt(digits, 16);
  return Number.isSafeInteger(n) ? n : null;
}

export type UmdhLogParser = LineParser<UmdhLogRecord>;

export function createUmdhLogParser(options: StreamOptions<UmdhLogEntry> = {}): UmdhLogParser {
  const keep = keepsEntries(options);
  const onEntry = options.onEntry;
  const warnings = createWarningList();
  const record: UmdhLogRecord = { entries: [], entryCount: 0, warnings: [] };
  let entry: UmdhLogEntry | null = null;

  const close = (): void => {
    if (entry === null) return;
    record.entryCount = (record.entryCount ?? 0) + 1;
    if (keep) record.entries.push(entry);
    onEntry?.(entry);
    entry = null;
  };

  return {
    push(line: string): void {
      const m = LOG_ENTRY_RE.exec(line);
      if (m) {
        close();
        entry = logEntryFrom(m, line, warnings.add);
        return;
      }
      // Frames are most of a log: the second entry layout is only tried on lines that can be one.
      const a = line.includes(' bytes + ') ? LOG_ALLOCATION_RE.exec(line) : null;
      if (a) {
        close();
        entry = allocationEntryFrom(a, line, warnings.add);
        return;
      }
      const trimmed = line.trim();
      if (trimmed.length === 0) {
        close();
        return;
      }
      if (COMMAND_RE.test(line) || LEGEND_RE.test(line)) return;
      // ntdll!RtlDebugAllocateHeap+0x000000FD
      if (entry !== null && !ELISION_RE.test(line)) {
        entry.frames.push(trimmed);
        return;
      }
      warnings.add(unplaced(line));
    },
    finish(): UmdhLogRecord {
      close();
      record.warnings = warnings.list();
      return record;
    },
  };
}

export function parseUmdhLog(text: string): UmdhLogRecord {
  return feedText(createUmdhLogParser(), text);
}

export function logEntryFrom(
  m: RegExpExecArray,
  line: string,
  warn: (text: string) => void,
): UmdhLogEntry | null {
  const bytes = hex(m[1]);
  if (bytes === null) {
    warn(`number out of range: ${line.trim()}`);
    return null;
  }
  const entry: UmdhLogEntry = { backtrace: m[4] ?? '', bytes, frames: [] };
  const allocs = parseCount(m[2] ?? '');
  const size = hex((m[3] ?? '').slice(2));
  if (allocs !== null) entry.allocs = allocs;
  if (size !== null) entry.allocationSize = size;
  return entry;
}

/** `C6 bytes + 1A at 56004C0 by BackTrace3965308`: one allocation, all numbers hex. */
export function allocationEntryFrom(
  m: RegExpExecArray,
  line: string,
  warn: (text: string) => void,
): UmdhLogEntry | null {
  const bytes = hex(m[1]);
  const overhead = hex(m[2]);
  if (bytes === null || overhead === null) {
    warn(`number out of range: ${line.trim()}`);
    return null;
  }
  const address = `0x${(m[3] ?? '').toLowerCase().replace(/^0+(?=.)/, '')}`;
  return { backtrace: m[4] ?? '', bytes, allocs: 1, overhead, address, frames: [] };
}

function parseCount(raw: string): number | null {
  const n = raw.toLowerCase().startsWith('0x') ? Number.parseInt(raw.slice(2), 16) : Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

export const umdhLogDescriptor = defineParser({
  kind: 'umdhLog',
  commands: [
    // umdh -p:1234 -f:snap1.log, umdh -pn:app.exe -f:a.txt (a snapshot: its log is the file it writes)
    /^umdh(?:\.exe)?\s.*-pn?:/i,
  ],
  parse: (text) => parseUmdhLog(text),
  summary: (record) => [`${record.entries.length} backtrace(s)`],
});
