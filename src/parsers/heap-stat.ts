// `!heap -stat -h ADDR`: allocation size buckets of one heap. Every number in a bucket row is hex
// (cn-notes: `190 5328 - 81ee80` is 0x190 * 0x5328 = 0x81ee80), the percent is decimal.
//
// `!heap -l` (heap-stat/heap-l-docs-xp-era.txt) is NOT this command's output: it is a leak scan
// listing heap entries (`Entry User Heap Segment Size PrevSize Flags`), not size buckets, so this
// parser leaves its lines in `warnings` rather than forcing them into buckets.
import { defineParser } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { normalizeHex } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface HeapStatBucket {
  size: number;
  count: number;
  totalBytes: number;
  percent: number;
}

export interface HeapStatRecord extends RecordBase {
  heap?: Hex;
  buckets: HeapStatBucket[];
  /** `group-by: TOTSIZE max-display: 20` */
  groupBy?: string;
  maxDisplay?: number;
}

// 0:006> !heap -stat -h 039d0000
const COMMAND_RE = /^!heap\b/i;
//  heap @ 039d0000
const HEAP_RE = /^\s*heap @ ([0-9a-f`]+)\s*$/i;
// group-by: TOTSIZE max-display: 20
const GROUP_BY_RE = /^\s*group-by:\s*(\S+)\s+max-display:\s*(\d+)\s*$/i;
//     size     #blocks     total     ( %) (percent of total busy bytes)
const HEADER_RE = /^\s*size\s+#blocks\s+total\b/i;
//     190 5328 - 81ee80  (97.61)
const BUCKET_RE =
  /^\s*([0-9a-f]+)\s+([0-9a-f]+)\s+-\s+([0-9a-f]+)\s+\(\s*(\d+(?:\.\d+)?)\s*\)\s*$/i;

export function parseHeapStat(text: string): HeapStatRecord {
  const warnings = createWarningList();
  const record: HeapStatRecord = { buckets: [], warnings: [] };
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r/g, '');
    if (line.trim().length === 0) continue;
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;
    let m: RegExpExecArray | null;
    if ((m = BUCKET_RE.exec(line))) {
      const size = Number.parseInt(m[1] ?? '', 16);
      const count = Number.parseInt(m[2] ?? '', 16);
      const totalBytes = Number.parseInt(m[3] ?? '', 16);
      const percent = Number(m[4]);
      if ([size, count, totalBytes].every(Number.isSafeInteger) && Number.isFinite(percent)) {
        record.buckets.push({ size, count, totalBytes, percent });
      } else warnings.add(`number out of range: ${line.trim()}`);
    } else if ((m = HEAP_RE.exec(line))) {
      const heap = normalizeHex(m[1] ?? '');
      if (heap !== null) record.heap = heap;
    } else if ((m = GROUP_BY_RE.exec(line))) {
      record.groupBy = m[1] ?? '';
      record.maxDisplay = Number(m[2]);
    } else if (!HEADER_RE.test(line)) {
      warnings.add(unplaced(line));
    }
  }
  record.warnings = warnings.list();
  return record;
}

export const heapStatDescriptor = defineParser({
  kind: 'heapStat',
  commands: [
    // !heap -stat -h 00310000
    /^!heap\s+-stat(?:\s|$)/i,
  ],
  parse: (text) => parseHeapStat(text),
  summary: (record) => [
    `${record.buckets.length} bucket(s)${record.heap ? ` in heap ${record.heap}` : ''}`,
  ],
});
