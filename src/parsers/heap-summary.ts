// `!heap -s` (and `!heap -s -h 0`): the NT heap summary table, one row per heap, plus the notices
// cdb prints around it. Formats seen in test/fixtures/transcripts/heap-s:
// - XP/2003: table only, `Fast heap` column `L` (lookaside);
// - Windows 7: `LFH Key`, `Termination on corruption`, `Affinity manager status:` block;
// - Windows 8.1/10: `NtGlobalFlag enables …` list, `NT HEAP STATS BELOW` star banner,
//   `SEGMENT HEAP ERROR …`, `External fragmentation` and `Virtual block:` lines, `No heaps to display.`
//
// Rows are read as whitespace tokens, not fixed columns: a number wider than its column pushes the
// rest of the row right (keenjin: `00310000 00001002 1682164 1669420 1682164   7769 …`).
//
// `Lock cont.` is read as HEX. The hueifeng row ends `…    2      c   LFH`: a `c` can only come from
// a hex conversion, and one column has one conversion, so every value in it is hex (`23` is 35).
// The other numeric columns never show a hex letter in any transcript and are decimal kilobytes or
// counts (their headers say `(k)`; Reserv 1682164 k in keenjin is a believable 1.6 GB heap).
import { defineParser } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { formatHeapSummaryTable } from './heap-summary-table.js';
import { normalizeHex } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface HeapSummaryHeap {
  address: Hex;
  flags: Hex;
  reservedKb: number;
  committedKb: number;
  virtualKb: number;
  freeKb: number;
  listLength: number;
  ucrCount: number;
  virtualBlocks: number;
  lockContention: number;
  fastHeap: 'LFH' | 'L' | null;
  /** `External fragmentation  38 % (163 free blocks)` sub-line, when printed. */
  externalFragmentationPercent?: number;
  externalFragmentationFreeBlocks?: number;
  /**
   * `Virtual block: X - X (size N)` lines. cdb prints them just BEFORE the row of the heap they
   * belong to (keenjin transcript: 10 lines, then a row with `Virt blocks` = 10).
   */
  virtualBlockRanges?: { start: Hex; end: Hex; size: number }[];
}

export interface SegmentHeapEntry {
  address: Hex;
  [field: string]: unknown;
}

export interface HeapSummaryRecord extends RecordBase {
  heaps: HeapSummaryHeap[];
  lfhKey?: Hex;
  terminationOnCorruption?: boolean;
  segmentHeaps?: SegmentHeapEntry[];
  ntGlobalFlag?: string[];
  /** `SEGMENT HEAP ERROR: failed to initialize the extention` (sic), as printed. */
  segmentHeapError?: string;
  /** True when the table said `No heaps to display.` (an empty list that is not a parse failure). */
  noHeapsToDisplay?: boolean;
  /** Windows 7 `Affinity manager status:` block. */
  affinityManager?: {
    virtualAffinityLimit?: number;
    currentEntriesInUse?: number;
    swaps?: number;
    resets?: number;
    allocs?: number;
  };
}

// 0:000> !heap -s
const COMMAND_RE = /^!heap\b/i;
// 00000218f1710000 00000002   65320  14712  64928   5575   163    16    2      c   LFH
// 00150000 00000002   16384  16352  16352      2     0     1    0      0   L
// 000000bd4aef0000 40000062    1020     44   1020      1    12     1    0      0
const HEAP_ROW_RE =
  /^\s*([0-9a-f`]{8,17})\s+([0-9a-f]{1,8})\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9a-f]+)(?:\s+(LFH|L))?\s*$/i;
//     External fragmentation  38 % (163 free blocks)
const FRAGMENTATION_RE = /^\s*External fragmentation\s+(\d+)\s*%\s*\(\s*(\d+)\s+free blocks\s*\)/i;
// Virtual block: 07dc0000 - 07dc0000 (size 00000000)
const VIRTUAL_BLOCK_RE =
  /^\s*Virtual block:\s+([0-9a-f`]+)\s+-\s+([0-9a-f`]+)\s+\(size\s+([0-9a-f`]+)\)\s*$/i;
// LFH Key                   : 0xa893144b6b979747
const LFH_KEY_RE = /^\s*LFH Key\s*:\s*(0x[0-9a-f`]+)\s*$/i;
// Termination on corruption : ENABLED
const TERMINATION_RE = /^\s*Termination on corruption\s*:\s*(ENABLED|DISABLED)\s*$/i;
// NtGlobalFlag enables following debugging aids for new heaps:
const NT_GLOBAL_FLAG_RE = /^\s*NtGlobalFlag enables following debugging aids/i;
// SEGMENT HEAP ERROR: failed to initialize the extention
const SEGMENT_HEAP_ERROR_RE = /^\s*SEGMENT HEAP ERROR\b/;
// Affinity manager status:
const AFFINITY_RE = /^\s*Affinity manager status:\s*$/i;
//    - Virtual affinity limit 4
const AFFINITY_LIMIT_RE = /^\s*-\s*Virtual affinity limit\s+(-?\d+)\s*$/i;
//    - Current entries in use -1
const AFFINITY_IN_USE_RE = /^\s*-\s*Current entries in use\s+(-?\d+)\s*$/i;
//    - Statistics:  Swaps=0, Resets=0, Allocs=0
const AFFINITY_STATS_RE = /^\s*-\s*Statistics:\s*Swaps=(\d+),\s*Resets=(\d+),\s*Allocs=(\d+)\s*$/i;
//   Heap     Flags   Reserv  Commit  Virt   Free  List   UCR  Virt  Lock  Fast
//                     (k)     (k)    (k)     (k) length      blocks cont. heap
const TABLE_HEADER_RE = /^\s*(?:Heap\s+Flags\s+Reserv\b|\(k\)\s+\(k\))/;
// ------------------------------------------------------------------------------------- and the
// ***…*** lines around `NT HEAP STATS BELOW`
const RULE_RE = /^\s*(?:-{5,}|\*{5,})\s*$/;
//                                               NT HEAP STATS BELOW
const NT_BANNER_RE = /^\s*NT HEAP STATS BELOW\s*$/;
// No heaps to display.
const NO_HEAPS_RE = /^\s*No heaps to display\.?\s*$/i;

type Section = 'none' | 'ntGlobalFlag' | 'affinity';

export function parseHeapSummary(text: string): HeapSummaryRecord {
  const warnings = createWarningList();
  const record: HeapSummaryRecord = { heaps: [], warnings: [] };
  // Virtual block lines come before the row of their heap; they wait here for it.
  let pendingVirtualBlocks: NonNullable<HeapSummaryHeap['virtualBlockRanges']> = [];
  let section: Section = 'none';

  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r/g, '');
    if (line.trim().length === 0) {
      section = 'none';
      continue;
    }
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;

    if (section === 'ntGlobalFlag' && /^\s+\S/.test(line) && !/:/.test(line)) {
      //     stack back traces
      (record.ntGlobalFlag ??= []).push(line.trim());
      continue;
    }
    if (section === 'affinity' && /^\s*-/.test(line)) {
      const affinity = (record.affinityManager ??= {});
      let m: RegExpExecArray | null;
      if ((m = AFFINITY_LIMIT_RE.exec(line))) affinity.virtualAffinityLimit = Number(m[1]);
      else if ((m = AFFINITY_IN_USE_RE.exec(line))) affinity.currentEntriesInUse = Number(m[1]);
      else if ((m = AFFINITY_STATS_RE.exec(line))) {
        affinity.swaps = Number(m[1]);
        affinity.resets = Number(m[2]);
        affinity.allocs = Number(m[3]);
      } else warnings.add(unplaced(line));
      continue;
    }
    section = 'none';

    const row = HEAP_ROW_RE.exec(line);
    if (row) {
      const heap = heapFromRow(row);
      if (heap) {
        if (pendingVirtualBlocks.length > 0) {
          heap.virtualBlockRanges = pendingVirtualBlocks;
          pendingVirtualBlocks = [];
        }
        record.heaps.push(heap);
        continue;
      }
    }
    let m: RegExpExecArray | null;
    if ((m = FRAGMENTATION_RE.exec(line))) {
      const last = record.heaps.at(-1);
      if (last) {
        last.externalFragmentationPercent = Number(m[1]);
        last.externalFragmentationFreeBlocks = Number(m[2]);
      } else warnings.add(`fragmentation line before any heap row: ${line.trim()}`);
    } else if ((m = VIRTUAL_BLOCK_RE.exec(line))) {
      const start = normalizeHex(m[1] ?? '');
      const end = normalizeHex(m[2] ?? '');
      const size = Number.parseInt((m[3] ?? '').replace(/`/g, ''), 16);
      if (start !== null && end !== null && Number.isSafeInteger(size)) {
        pendingVirtualBlocks.push({ start, end, size });
      } else warnings.add(unplaced(line));
    } else if ((m = LFH_KEY_RE.exec(line))) {
      const key = normalizeHex(m[1] ?? '');
      if (key !== null) record.lfhKey = key;
    } else if ((m = TERMINATION_RE.exec(line))) {
      record.terminationOnCorruption = (m[1] ?? '').toUpperCase() === 'ENABLED';
    } else if (NT_GLOBAL_FLAG_RE.test(line)) {
      record.ntGlobalFlag ??= [];
      section = 'ntGlobalFlag';
    } else if (AFFINITY_RE.test(line)) {
      record.affinityManager ??= {};
      section = 'affinity';
    } else if (SEGMENT_HEAP_ERROR_RE.test(line)) {
      record.segmentHeapError = line.trim();
    } else if (NO_HEAPS_RE.test(line)) {
      record.noHeapsToDisplay = true;
    } else if (!TABLE_HEADER_RE.test(line) && !RULE_RE.test(line) && !NT_BANNER_RE.test(line)) {
      warnings.add(unplaced(line));
    }
  }

  for (const block of pendingVirtualBlocks) {
    warnings.add(`virtual block with no heap row after it: ${block.start} - ${block.end}`);
  }
  record.warnings = warnings.list();
  return record;
}

function heapFromRow(m: RegExpExecArray): HeapSummaryHeap | null {
  const address = normalizeHex(m[1] ?? '');
  const flags = normalizeHex(m[2] ?? '');
  const lock = Number.parseInt(m[10] ?? '', 16);
  if (address === null || flags === null || !Number.isSafeInteger(lock)) return null;
  const fast = m[11]?.toUpperCase();
  return {
    address,
    flags,
    reservedKb: Number(m[3]),
    committedKb: Number(m[4]),
    virtualKb: Number(m[5]),
    freeKb: Number(m[6]),
    listLength: Number(m[7]),
    ucrCount: Number(m[8]),
    virtualBlocks: Number(m[9]),
    lockContention: lock,
    fastHeap: fast === 'LFH' ? 'LFH' : fast === 'L' ? 'L' : null,
  };
}

export const heapSummaryDescriptor = defineParser({
  kind: 'heapSummary',
  commands: [
    // !heap -s, !heap -s -h 0
    /^!heap\s+-s(?:\s|$)/i,
  ],
  parse: (text) => parseHeapSummary(text),
  // cdb's table, one row per heap, then the total.
  summary: (record) => {
    const committed = record.heaps.reduce((n, h) => n + h.committedKb, 0);
    return formatHeapSummaryTable(record).concat(
      `${record.heaps.length} heap(s), ${committed} KB committed`,
    );
  },
});
