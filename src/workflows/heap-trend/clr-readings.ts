// SOS replies → heap-trend sample series: `!eeheap -gc` gives one series per GC generation or area
// (`gen0`, `gen1`, `gen2` in the .NET 7+ regions layout; `soh` for the segments layout, which puts
// generations inside segments; `loh`, `poh`, `nongc`), committed KB each; `!dumpheap -stat` gives
// one series per type, its bytes / 1024 as KB and its object count. The same reading serves the live
// dotnet-dump sampler and `--from-dumps`, and would serve cdb + SOS, since SOS prints the same text.
// Pure.
import { parseDumpHeapStat } from '../../parsers/dump-heap-stat.js';
import { parseEeHeapGc, type EeHeapGcRecord } from '../../parsers/ee-heap-gc.js';
import type { HeapTrendSampleHeap } from '../../report/heap-trend/types.js';

// SOS refuses to walk a heap caught in the middle of a garbage collection (a dump taken mid-GC:
// dotnet/diagnostics#3214). Its words since SOS's heap commands were rewritten in C#
// (dotnet/diagnostics#4361; src/Microsoft.Diagnostics.ExtensionCommands/DumpHeapCommand.cs,
// ParseArguments: `if (!Runtime.Heap.CanWalkHeap && !IgnoreGCState) throw new
// DiagnosticsException(…)`), and the native SOS's before them, as recorded in #3214
// (test/fixtures/transcripts/misc/dumpheap-mid-gc-issue-3214-linux-netcore31.txt). The lines
// it matches:
//   The GC heap is not in a valid state for traversal.  (Use -ignoreGCState to override.)
//   The garbage collector data structures are not in a valid state for traversal.
const MID_GC_RE =
  /^.*(?:The GC heap is|The garbage collector data structures are) not in a valid state for traversal\..*$/m;

/** SOS's refusal to walk a heap dumped mid-GC, in its own words; undefined when none. */
export function midGcRefusal(text: string | undefined): string | undefined {
  const match = text === undefined ? null : MID_GC_RE.exec(text);
  return match === null ? undefined : match[0].trim();
}

export interface ClrReading {
  /** Per generation/area: committed (and allocated, as `reservedKb` is not known) KB. */
  generations: HeapTrendSampleHeap[];
  types: HeapTrendSampleHeap[];
  /** Type name → method table, for `!dumpheap -mt MT -short` on the same dump. */
  methodTables: Map<string, string>;
  warnings: string[];
  /** SOS refused to walk the heap (a dump taken mid-GC): its words. */
  refusal?: string;
}

/** The SOS commands a managed sample runs, in order. */
// `-live`: only objects reachable from a root; without it the statistics count garbage not yet
// collected too, and a cache that evicts looks like a leak until the next GC.
export const CLR_SAMPLE_COMMANDS = ['eeheap -gc', 'dumpheap -stat -live'] as const;

function generationsOf(record: EeHeapGcRecord): HeapTrendSampleHeap[] {
  const bytes = new Map<string, number>();
  for (const heap of record.heaps) {
    for (const segment of heap.segments) {
      const id =
        segment.area === 'soh' && segment.generation !== undefined
          ? `gen${segment.generation}`
          : segment.area;
      const size = segment.committedSize ?? segment.allocatedSize ?? 0;
      bytes.set(id, (bytes.get(id) ?? 0) + size);
    }
  }
  return [...bytes.entries()].map(([id, b]) => ({ id, committedKb: b / 1024 }));
}

export function readClrOutputs(
  eeheapText: string | undefined,
  dumpheapText: string | undefined,
): ClrReading {
  const warnings: string[] = [];
  const reading: ClrReading = { generations: [], types: [], methodTables: new Map(), warnings };
  if (eeheapText !== undefined) {
    const record = parseEeHeapGc(eeheapText);
    reading.generations = generationsOf(record);
    if (reading.generations.length === 0) warnings.push('eeheap -gc listed no GC segments');
    for (const w of record.warnings.slice(0, 5)) warnings.push(`eeheap -gc: ${w}`);
  }
  const refusal = midGcRefusal(dumpheapText);
  if (refusal !== undefined) {
    reading.refusal = refusal;
    return reading;
  }
  if (dumpheapText !== undefined) {
    const byName = new Map<string, HeapTrendSampleHeap>();
    const record = parseDumpHeapStat(dumpheapText);
    for (const row of record.types) {
      // One name can have several method tables (generic instantiations in two load contexts):
      // the type's series is their sum; retention asks for the biggest one's objects.
      const entry = byName.get(row.className);
      if (entry === undefined) {
        byName.set(row.className, {
          id: row.className,
          committedKb: row.totalSize / 1024,
          count: row.count,
        });
        reading.methodTables.set(row.className, row.methodTable);
      } else {
        entry.committedKb += row.totalSize / 1024;
        entry.count = (entry.count ?? 0) + row.count;
      }
    }
    reading.types = [...byName.values()];
    for (const w of record.warnings.slice(0, 5)) warnings.push(`dumpheap -stat: ${w}`);
  }
  return reading;
}
