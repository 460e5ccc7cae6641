// SOS `!dumpheap -stat`: one row per type (`MT Count TotalSize Class Name`), then `Total N objects`.
// On a big managed heap this output runs to many megabytes, so the parser is a line-fed object
// (createDumpHeapStatParser) that can hand each row to `onEntry` instead of keeping it;
// parseDumpHeapStat feeds the same object from a string.
import { defineParser, SOS_PREFIX } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { feedText, keepsEntries, type LineParser, type StreamOptions } from './line-parser.js';
import { hexToken } from './hex-token.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface DumpHeapStatType {
  methodTable: Hex;
  count: number;
  totalSize: number;
  className: string;
}

export interface DumpHeapStatRecord extends RecordBase {
  types: DumpHeapStatType[];
  totalObjects?: number;
  /** Bytes, from the footer's `, N bytes` (newer SOS prints it). */
  totalSize?: number;
  /** Rows parsed, also when the caller streamed them out instead of keeping them. */
  typeCount?: number;
}

// 0:000> !dumpheap -stat
const COMMAND_RE = /^!?dumpheap\b/i;
// Statistics:
const STATISTICS_RE = /^\s*Statistics:\s*$/i;
// `-live` preamble (dotnet-dump 10, dotnet-dump/series-dumpheap-stat-live-*-linux-net10.txt):
// Calculating live objects, this may take a while...
// Caching GC roots, this may take a while.
// Subsequent runs of this command will be faster.
// Calculating live objects complete: 365 objects from 25 roots
const LIVE_PREAMBLE_RE =
  /^\s*(?:Calculating live objects\b|Caching GC roots\b|Subsequent runs of this command\b)/i;
//     MT    Count    TotalSize Class Name
const HEADER_RE = /^\s*MT\s+Count\s+TotalSize\s+Class Name\s*$/i;
// 011b7998       10          116      Free
// 6c1844d4        3          468 System.Collections.Generic.Dictionary`2+Entry[[System.Type, mscorlib],[…]][]
// (Counts may carry thousands separators in newer SOS builds; commas are accepted, not required.)
const ROW_RE = /^\s*([0-9a-fA-F`]{1,17})\s+([\d,]+)\s+([\d,]+)\s+(\S.*)$/;
// Total 12345 objects   (the footer; the netfx48 transcript's author cut it off)
// Total 476 objects, 10,558,234 bytes   (dotnet-dump 10; test/fixtures/transcripts/dotnet-dump/)
const TOTAL_RE = /^\s*Total\s+([\d,]+)\s+objects\b(?:,\s*([\d,]+)\s+bytes\b)?/i;

export type DumpHeapStatParser = LineParser<DumpHeapStatRecord>;

export function createDumpHeapStatParser(
  options: StreamOptions<DumpHeapStatType> = {},
): DumpHeapStatParser {
  const keep = keepsEntries(options);
  const onEntry = options.onEntry;
  const warnings = createWarningList();
  const types: DumpHeapStatType[] = [];
  let typeCount = 0;
  let totalObjects: number | undefined;
  let totalSize: number | undefined;

  return {
    push(line: string): void {
      const m = ROW_RE.exec(line);
      if (m) {
        const methodTable = hexToken(m[1] ?? '');
        const count = toInt(m[2] ?? '');
        const totalSize = toInt(m[3] ?? '');
        if (methodTable !== null && count !== null && totalSize !== null) {
          const entry: DumpHeapStatType = {
            methodTable,
            count,
            totalSize,
            className: (m[4] ?? '').trimEnd(),
          };
          typeCount++;
          if (keep) types.push(entry);
          onEntry?.(entry);
          return;
        }
      }
      if (line.trim().length === 0) return;
      const total = TOTAL_RE.exec(line);
      if (total) {
        const n = toInt(total[1] ?? '');
        if (n !== null) totalObjects = n;
        const bytes = total[2] === undefined ? null : toInt(total[2]);
        if (bytes !== null) totalSize = bytes;
        return;
      }
      if (STATISTICS_RE.test(line) || HEADER_RE.test(line) || LIVE_PREAMBLE_RE.test(line)) return;
      if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) return;
      warnings.add(unplaced(line));
    },
    finish(): DumpHeapStatRecord {
      const record: DumpHeapStatRecord = { types, typeCount, warnings: warnings.list() };
      if (totalObjects !== undefined) record.totalObjects = totalObjects;
      if (totalSize !== undefined) record.totalSize = totalSize;
      return record;
    },
  };
}

export function parseDumpHeapStat(text: string): DumpHeapStatRecord {
  return feedText(createDumpHeapStatParser(), text);
}

/** Digits with optional thousands separators (the row regex admits nothing else). */
function toInt(digits: string): number | null {
  let n = 0;
  let seen = false;
  for (let i = 0; i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    if (c === 44 /* , */) continue;
    n = n * 10 + (c - 48);
    seen = true;
  }
  return seen && Number.isSafeInteger(n) ? n : null;
}

export const dumpHeapStatDescriptor = defineParser({
  kind: 'dumpHeapStat',
  commands: [
    // !dumpheap -stat, !dumpheap -type System.String -stat
    new RegExp(`^${SOS_PREFIX}dumpheap\\b.*\\s-stat\\b`, 'i'),
  ],
  parse: (text) => parseDumpHeapStat(text),
  summary: (record) => [`${record.types.length} type(s)`],
});
