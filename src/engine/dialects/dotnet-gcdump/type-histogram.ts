// Per-type object counts and bytes of a gcdump's graph: every node's size summed by its type, as
// PerfView's `MemoryGraph.GetHistogramByType` does (Graph.cs), with the graph's pseudo-nodes
// (`[.NET Roots]`, `[static vars]`, `[static var …]`, size 0) left out. The reader that writes a
// gcdump files big arrays under a bucketed type name so PerfView can group them
// (`System.Byte[] (Bytes > 10K)`, `System.Int64[] (Bytes > 1M)`: DotNetHeapDumpGraphReader.cs);
// the bucket is cut off here so one type is one series whatever its objects' sizes. Pure.
import { nodeTypeAndSize, type GcDump } from './gcdump-file.js';

export interface GcDumpTypeRow {
  /** The type name without PerfView's size bucket: `System.Byte[]`. */
  name: string;
  count: number;
  bytes: number;
}

// The size bucket PerfView appends to array type names: `System.Byte[] (Bytes > 10K)`.
const SIZE_BUCKET_RE = / \(Bytes > \d+[KMG]?\)$/;

/** `System.Byte[] (Bytes > 10K)` → `System.Byte[]`. */
export function typeNameOf(name: string): string {
  return name.replace(SIZE_BUCKET_RE, '');
}

/**
 * Counts and bytes per type name, biggest first. A sampled graph (multipliers other than 1) is
 * scaled back to the whole heap, as PerfView does.
 */
export function typeHistogram(dump: GcDump): GcDumpTypeRow[] {
  const count = new Float64Array(dump.types.length);
  const bytes = new Float64Array(dump.types.length);
  for (let i = 0; i < dump.nodeCount; i++) {
    const node = nodeTypeAndSize(dump, i);
    if (node.size <= 0 || node.type < 0 || node.type >= dump.types.length) continue;
    count[node.type] = (count[node.type] ?? 0) + 1;
    bytes[node.type] = (bytes[node.type] ?? 0) + node.size;
  }
  const rows = new Map<string, GcDumpTypeRow>();
  for (let t = 0; t < dump.types.length; t++) {
    const n = count[t] ?? 0;
    if (n === 0) continue;
    const name = typeNameOf(dump.types[t]?.name ?? '');
    if (name === '') continue;
    const row = rows.get(name) ?? { name, count: 0, bytes: 0 };
    row.count += Math.round(n * dump.countMultiplier);
    row.bytes += Math.round((bytes[t] ?? 0) * dump.sizeMultiplier);
    rows.set(name, row);
  }
  return [...rows.values()].sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}
