// SOS `!eeheap -gc`: the GC heaps (one for workstation GC, `Heap N (ADDR)` blocks for server GC),
// each with its generation starts and segment rows, then the GC-wide totals. The only transcript is
// the segments-era .NET 6 server GC (misc/eeheap-gc-server-12heaps-net6-x64.txt) and the .NET 7+
// regions layout (area headings, `generation N:` above each generation's regions, a NonGC heap;
// test/fixtures/transcripts/dotnet-dump/eeheap-gc-*-linux-net10.txt); other lines warn.
import { defineParser, SOS_PREFIX } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { normalizeHex } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface EeHeapGcSegment {
  /**
   * `soh` before `Large object heap starts at`, then `loh`, then `poh` (pinned object heap); in the
   * regions layout, from the area headings, with `nongc` for the NonGC (frozen objects) heap.
   */
  area: 'soh' | 'loh' | 'poh' | 'nongc';
  /** Regions layout: the `generation N:` the region is listed under. */
  generation?: number;
  segment: Hex;
  begin: Hex;
  allocated: Hex;
  committed?: Hex;
  allocatedSize?: number;
  committedSize?: number;
}

/** One `Heap N (ADDR)` block of `!eeheap -gc` (a workstation GC prints one without the header). */
export interface EeHeapGcHeap {
  index?: number;
  address?: Hex;
  generations: { generation: number; start: Hex }[];
  ephemeralAllocationContext?: string;
  largeObjectHeapStart?: Hex;
  pinnedObjectHeapStart?: Hex;
  segments: EeHeapGcSegment[];
  allocatedSize?: number;
  committedSize?: number;
  [field: string]: unknown;
}

export interface EeHeapGcRecord extends RecordBase {
  heaps: EeHeapGcHeap[];
  /** Bytes: `GC Allocated Heap Size: Size: 0x14459f90 (340107152) bytes.` (or `GC Heap Size:`). */
  totalSize?: number;
  totalCommitted?: number;
  heapCount?: number;
  /** `DATAS = …` when it carries a value (.NET 8+). */
  datas?: string;
}

// 0:000> !eeheap -gc
const COMMAND_RE = /^!?eeheap\b/i;
// Number of GC Heaps: 12
const HEAP_COUNT_RE = /^\s*Number of GC Heaps:\s*(\d+)\s*$/i;
// Heap 0 (00000218F3182A40)
const HEAP_RE = /^\s*Heap\s+(\d+)\s+\(([0-9a-f`]+)\)\s*$/i;
// generation 0 starts at 0x00000218F34C9DB0
const GENERATION_RE = /^\s*generation\s+(\d+)\s+starts at\s+(0x[0-9a-f`]+)\s*$/i;
// ephemeral segment allocation context: none
const EPHEMERAL_RE = /^\s*ephemeral segment allocation context:\s*(.*)$/i;
// Large object heap starts at 0x0000021BF3461000
// Pinned object heap starts at 0x0000021CB3461000
const AREA_START_RE = /^\s*(Large|Pinned) object heap starts at\s+(0x[0-9a-f`]+)\s*$/i;
// Regions: `Small object heap`, `Large object heap`, `Pinned object heap`, `NonGC heap`
const AREA_HEADING_RE = /^\s*(Small|Large|Pinned|NonGC)(?: object)? heap\s*$/i;
// Regions: `generation 0:` (the rows below are that generation's regions)
const REGION_GENERATION_RE = /^\s*generation\s+(\d+):\s*$/i;
// DATAS =     (.NET 8+ dynamic adaptation to application sizes; blank when off)
const DATAS_RE = /^\s*DATAS\s*=\s*(.*)$/;
//          segment             begin         allocated         committed    allocated size    committed size
const SEGMENT_HEADER_RE = /^\s*segment\s+begin\s+allocated\b/i;
// 00000218F3460000  00000218F3461000  00000218F3A0BDC8  00000218F3F02000  0x5aadc8(5942728)  0xaa1000(11145216)
//     7fdec32532c0     7fdedd000028     7fdedd004068     7fdedd011000 0x4040 (16448)      0x11000 (69632)
const SEGMENT_RE =
  /^\s*([0-9a-f`]{8,17})\s+([0-9a-f`]{8,17})\s+([0-9a-f`]{8,17})(?:\s+([0-9a-f`]{8,17}))?((?:\s+0x[0-9a-f]+\s?\(\d+\))*)\s*$/i;
// 0x5aadc8(5942728), 0x4040 (16448)
const SIZE_PAIR_RE = /0x[0-9a-f]+\s?\((\d+)\)/gi;
// Allocated Heap Size:       Size: 0x15ec688 (22988424) bytes.
// GC Committed Heap Size:    Size: 0x182d4000 (405618688) bytes.
const SIZE_LINE_RE = /^\s*([A-Za-z][A-Za-z ]*?):\s+Size:\s+0x[0-9a-f]+\s+\((\d+)\)\s+bytes\.?\s*$/i;
// ------------------------------
// ========================================   (regions layout)
const RULE_RE = /^\s*(?:-{5,}|={5,})\s*$/;

export function parseEeHeapGc(text: string): EeHeapGcRecord {
  const warnings = createWarningList();
  const record: EeHeapGcRecord = { heaps: [], warnings: [] };
  let heap: EeHeapGcHeap | null = null;
  let area: EeHeapGcSegment['area'] = 'soh';
  let generation: number | undefined;

  // A workstation GC prints no `Heap N` line: its first generation line opens the one heap.
  const ensureHeap = (): EeHeapGcHeap => {
    if (heap === null) {
      heap = { generations: [], segments: [] };
      record.heaps.push(heap);
      area = 'soh';
    }
    return heap;
  };

  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r/g, '');
    if (line.trim().length === 0) continue;
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;
    let m: RegExpExecArray | null;
    if ((m = SEGMENT_RE.exec(line))) {
      const segment = segmentRow(m, area);
      if (segment) {
        if (generation !== undefined) segment.generation = generation;
        ensureHeap().segments.push(segment);
        continue;
      }
    }
    if ((m = GENERATION_RE.exec(line))) {
      const start = normalizeHex(m[2] ?? '');
      if (start !== null) ensureHeap().generations.push({ generation: Number(m[1]), start });
    } else if ((m = HEAP_RE.exec(line))) {
      heap = { index: Number(m[1]), generations: [], segments: [] };
      const address = normalizeHex(m[2] ?? '');
      if (address !== null) heap.address = address;
      record.heaps.push(heap);
      area = 'soh';
    } else if ((m = AREA_HEADING_RE.exec(line))) {
      const name = (m[1] ?? '').toLowerCase();
      area =
        name === 'small' ? 'soh' : name === 'large' ? 'loh' : name === 'pinned' ? 'poh' : 'nongc';
      generation = undefined;
    } else if ((m = REGION_GENERATION_RE.exec(line))) {
      generation = Number(m[1]);
    } else if ((m = DATAS_RE.exec(line))) {
      const value = (m[1] ?? '').trim();
      if (value.length > 0) record.datas = value;
    } else if ((m = AREA_START_RE.exec(line))) {
      const start = normalizeHex(m[2] ?? '');
      const current = ensureHeap();
      area = (m[1] ?? '').toLowerCase() === 'large' ? 'loh' : 'poh';
      if (start !== null && area === 'loh') current.largeObjectHeapStart = start;
      if (start !== null && area === 'poh') current.pinnedObjectHeapStart = start;
    } else if ((m = EPHEMERAL_RE.exec(line))) {
      ensureHeap().ephemeralAllocationContext = (m[1] ?? '').trim();
    } else if ((m = SIZE_LINE_RE.exec(line))) {
      sizeLine(record, heap, (m[1] ?? '').trim().toLowerCase(), Number(m[2]), line, warnings.add);
    } else if ((m = HEAP_COUNT_RE.exec(line))) {
      record.heapCount = Number(m[1]);
    } else if (!SEGMENT_HEADER_RE.test(line) && !RULE_RE.test(line)) {
      warnings.add(unplaced(line));
    }
  }
  record.warnings = warnings.list();
  return record;
}

function segmentRow(m: RegExpExecArray, area: EeHeapGcSegment['area']): EeHeapGcSegment | null {
  const segment = normalizeHex(m[1] ?? '');
  const begin = normalizeHex(m[2] ?? '');
  const allocated = normalizeHex(m[3] ?? '');
  if (segment === null || begin === null || allocated === null) return null;
  const row: EeHeapGcSegment = { area, segment, begin, allocated };
  if (m[4] !== undefined) {
    const committed = normalizeHex(m[4]);
    if (committed !== null) row.committed = committed;
  }
  const sizes = [...(m[5] ?? '').matchAll(SIZE_PAIR_RE)].map((s) => Number(s[1]));
  // Columns as printed: `allocated size`, then `committed size` when there is a committed column.
  // The regions layout leaves `allocated size` blank for an empty region (allocated = begin): its
  // one number is then the committed size.
  if (sizes.length === 1 && row.committed !== undefined && allocated === begin) {
    row.allocatedSize = 0;
    row.committedSize = sizes[0] ?? 0;
    return row;
  }
  if (sizes[0] !== undefined) row.allocatedSize = sizes[0];
  if (sizes[1] !== undefined) row.committedSize = sizes[1];
  return row;
}

function sizeLine(
  record: EeHeapGcRecord,
  heap: EeHeapGcHeap | null,
  label: string,
  bytes: number,
  line: string,
  warn: (text: string) => void,
): void {
  switch (label) {
    // GC Allocated Heap Size:    Size: 0x14459f90 (340107152) bytes.
    case 'gc allocated heap size':
    case 'gc heap size':
      record.totalSize = bytes;
      return;
    case 'gc committed heap size':
      record.totalCommitted = bytes;
      return;
    case 'allocated heap size':
    case 'heap size':
    case 'total size':
      if (heap !== null) heap.allocatedSize = bytes;
      else warn(unplaced(line));
      return;
    case 'committed heap size':
      if (heap !== null) heap.committedSize = bytes;
      else warn(unplaced(line));
      return;
    default:
      warn(unplaced(line));
  }
}

export const eeHeapGcDescriptor = defineParser({
  kind: 'eeHeapGc',
  commands: [
    // !eeheap -gc
    new RegExp(`^${SOS_PREFIX}eeheap\\b.*\\s-gc\\b`, 'i'),
  ],
  parse: (text) => parseEeHeapGc(text),
  summary: (record) => [
    `${record.heaps.length} GC heap(s)${record.totalSize !== undefined ? `, ${record.totalSize} bytes` : ''}`,
  ],
});
