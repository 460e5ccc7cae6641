// The `!heap -s` table as cdb prints it, rebuilt from a parsed heapSummary record (`parse --text`):
// one row per heap, so a reader sees the heaps, not only a total. The widths are cdb's own, read
// off the real transcripts in test/fixtures/transcripts/heap-s (a number wider than its column
// pushes the rest of the row right, as in the keenjin transcript):
//   00000218f1710000 00000002   65320  14712  64928   5575   163    16    2      c   LFH
//   00150000 00000002   16384  16352  16352      2     0     1    0      0   L
import type { HeapSummaryHeap, HeapSummaryRecord } from './heap-summary.js';

/** cdb pads addresses to the pointer width; the record keeps them without leading zeros. */
function addressWidth(record: HeapSummaryRecord): number {
  const wide = (hex: string | undefined) => hex !== undefined && hex.length - 2 > 8;
  return wide(record.lfhKey) || record.heaps.some((h) => wide(h.address)) ? 16 : 8;
}

function hexDigits(hex: string, width: number): string {
  return hex.replace(/^0x/, '').padStart(width, '0');
}

function row(heap: HeapSummaryHeap, width: number): string {
  const n = (value: number, columns: number) => ` ${String(value).padStart(columns)}`;
  const cells = [
    hexDigits(heap.address, width),
    ` ${hexDigits(heap.flags, 8)}`,
    n(heap.reservedKb, 7),
    n(heap.committedKb, 6),
    n(heap.virtualKb, 6),
    n(heap.freeKb, 6),
    n(heap.listLength, 5),
    n(heap.ucrCount, 5),
    n(heap.virtualBlocks, 4),
    // `Lock cont.` is hex in cdb's table (heap-summary.ts says why).
    ` ${heap.lockContention.toString(16).padStart(6)}`,
    heap.fastHeap === null ? '' : `   ${heap.fastHeap}`,
  ];
  return cells.join('');
}

/** The table's lines, headers and rules included, with no trailing blanks. */
export function formatHeapSummaryTable(record: HeapSummaryRecord): string[] {
  const width = addressWidth(record);
  const lines: string[] = [];
  if (record.lfhKey !== undefined)
    lines.push(`LFH Key                   : 0x${hexDigits(record.lfhKey, width)}`);
  if (record.terminationOnCorruption !== undefined)
    lines.push(
      `Termination on corruption : ${record.terminationOnCorruption ? 'ENABLED' : 'DISABLED'}`,
    );
  if (record.heaps.length === 0 && record.noHeapsToDisplay !== true) return lines;
  const rule = '-'.repeat(width + 69);
  lines.push(
    `${' '.repeat(width - 6)}Heap     Flags   Reserv  Commit  Virt   Free  List   UCR  Virt  Lock  Fast`,
    `${' '.repeat(width + 12)}(k)     (k)    (k)     (k) length      blocks cont. heap`,
    rule,
  );
  if (record.noHeapsToDisplay === true) lines.push('No heaps to display.');
  for (const heap of record.heaps) {
    // cdb prints a heap's virtual blocks just before its row (heap-summary.ts).
    for (const block of heap.virtualBlockRanges ?? [])
      lines.push(
        `Virtual block: ${hexDigits(block.start, width)} - ${hexDigits(block.end, width)} (size ${block.size.toString(16).padStart(width, '0')})`,
      );
    lines.push(row(heap, width));
    if (heap.externalFragmentationPercent !== undefined)
      lines.push(
        `    External fragmentation  ${heap.externalFragmentationPercent} % (${heap.externalFragmentationFreeBlocks ?? 0} free blocks)`,
      );
  }
  lines.push(rule);
  return lines;
}
