// The memory a dump captured: the MemoryList's and the Memory64List's ranges merged into one
// sorted address map (memory-map.ts), the MemoryList winning where the two overlap, with the
// totals `inspect` prints and what a cut file no longer holds counted past its end.
import type { DumpStreams } from './dump-streams.js';
import { memoryListView } from './memory-list-view.js';
import { MemoryMap, type MemoryMapStats } from './memory-map.js';
import { StreamType } from './stream-types.js';
import {
  allocRangeColumns,
  parseMemory64List,
  parseMemoryList,
  scratchRangeColumns,
  type MemoryListResult,
} from './streams/memory-lists.js';

export interface MemorySummary extends MemoryMapStats {
  /** Which lists supplied the captured ranges. */
  sources: ('MemoryList' | 'Memory64List')[];
  /** Bytes the Memory64List declares (0 without one). */
  memory64DeclaredBytes: number;
  /** Declared bytes that are not in the file (a truncated dump). */
  missingBytes: number;
}

export interface CapturedMemory {
  map: MemoryMap;
  summary: MemorySummary;
}

/** No list: shared by every dump (nothing writes to zero columns), not made for each. */
const EMPTY: MemoryListResult = {
  ranges: allocRangeColumns(0),
  declaredBytes: 0,
  missingBytes: 0,
};

/** Reads both memory lists of the dump (once: the caller keeps the answer) into one map. */
export async function readCapturedMemory(streams: DumpStreams): Promise<CapturedMemory> {
  const empty = EMPTY;
  let small: MemoryListResult;
  let big = empty;
  let map: MemoryMap;
  if (streams.find(StreamType.Memory64List) === undefined) {
    // One list (every minidump): parsed into a reused work space and merged in the same
    // synchronous step, before any other dump of the batch can run and reuse it.
    // The columns are not kept: the map holds its own copy.
    const merged = await streams.parse(StreamType.MemoryList, null, (ctx) => {
      // Every range in the file, below 2^52 and apart from the others: read where it lies.
      const view = memoryListView(ctx);
      if (view !== undefined) {
        const map = MemoryMap.fromListView(view);
        return { declaredBytes: view.totalBytes, missingBytes: 0, map };
      }
      const list = parseMemoryList(ctx, scratchRangeColumns);
      const { declaredBytes, missingBytes } = list;
      return { declaredBytes, missingBytes, map: MemoryMap.fromColumns([list.ranges]) };
    });
    small = merged === null ? empty : { ...merged, ranges: empty.ranges };
    map = merged?.map ?? MemoryMap.fromColumns([]);
  } else {
    small = await streams.parse(StreamType.MemoryList, empty, (ctx) => parseMemoryList(ctx));
    big = await streams.parse(StreamType.Memory64List, empty, (ctx) => parseMemory64List(ctx));
    // MemoryList first: where the two lists overlap, its capture wins.
    map = MemoryMap.fromColumns([small.ranges, big.ranges]);
  }
  if (map.stats.overlapCount > 0) {
    streams.warn(
      `${map.stats.overlapCount} captured memory range(s) overlap earlier ones (${map.stats.overlapBytes} bytes); the first capture of each address is used`,
    );
  }
  const missingBytes = small.missingBytes + big.missingBytes;
  if (missingBytes > 0) streams.notePastEnd('bytes of captured memory', missingBytes);
  const sources: MemorySummary['sources'] = [];
  if (streams.find(StreamType.MemoryList)) sources.push('MemoryList');
  if (streams.find(StreamType.Memory64List)) sources.push('Memory64List');
  return {
    map,
    summary: {
      ...map.stats,
      sources,
      memory64DeclaredBytes: big.declaredBytes,
      missingBytes,
    },
  };
}
