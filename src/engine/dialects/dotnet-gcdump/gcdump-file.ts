// A `.gcdump` file (what `dotnet-gcdump collect` writes) read into its object graph: PerfView's
// MemoryGraph (dotnet/diagnostics src/Tools/dotnet-gcdump/DotNetHeapDump/: GCHeapDump.cs
// `ToStream`, Graph.cs `ToStream`/`SetNode`, MemoryGraph.cs `ToStream`), in a FastSerialization
// container (fast-serialization.ts). The layout, in write order:
//   GCHeapDump  { MemoryGraph, bool is64Bit, float countMultiplier, float sizeMultiplier,
//                 JSHeapInfo, DotNetHeapInfo { long segmentsSize, int n, n × segment },
//                 string log, long ticks, string machine, string process, int pid,
//                 long commit, long workingSet, int n, n × float multiplier, tagged… }
//   Graph       { long totalSize, int rootIndex, int nTypes, nTypes × {string name, int size,
//                 string module}, int nNodes, nNodes × int blobOffset, int blobLength, blob }
//   MemoryGraph { Graph, int nAddresses, nAddresses × long address, tagged bool is64Bit }
// Each node in the blob: compressed int (type << 1 | hasSize), [compressed int size], compressed
// int childCount, childCount × compressed int (child - node). A type's `size` is the size of its
// first node; nodes of another size carry their own. (`dotnet-gcdump report` prints that first
// size in its "Object Bytes" column, not the type's total: PrintReportHelper.cs `type.Size`,
// which is why this reader, not the report, gives per-type bytes.)
// Pure: bytes in, graph out; bounded (counts checked against the bytes left).
import { FastSerializationReader, Tag, type SerializedType } from './fast-serialization.js';

export interface GcDumpType {
  /** As the dump names it: `System.Byte[] (Bytes > 10K)`, `Entry<System.Guid,…>[]`. */
  name: string;
  /** Size of the type's first node (nodes of another size carry theirs). */
  size: number;
  module: string | null;
}

export interface GcDump {
  totalSize: number;
  rootIndex: number;
  types: GcDumpType[];
  nodeCount: number;
  /** Where each node's record starts in `blob`. */
  nodeOffsets: Int32Array;
  blob: Uint8Array;
  /** Each node's object address (0 for the graph's pseudo-nodes: roots, groups). */
  addresses: BigUint64Array;
  is64Bit: boolean;
  /** Sampling: count and size multipliers (1 when the graph holds every object). */
  countMultiplier: number;
  sizeMultiplier: number;
  /** When the dump was taken (UTC ISO 8601), from the file's .NET ticks. */
  timeCollected: string | null;
  processName: string | null;
  processId: number;
  machineName: string | null;
  totalProcessCommit: number;
  totalProcessWorkingSet: number;
}

/** One node read from the blob. */
export interface GcDumpNode {
  type: number;
  size: number;
  children: number[];
}

// .NET DateTime ticks (100 ns since 0001-01-01) of the Unix epoch.
const EPOCH_TICKS = 621_355_968_000_000_000n;
// The low 62 bits of DateTime's binary form are the ticks; the top two are its Kind.
const TICKS_MASK = (1n << 62n) - 1n;

function ticksToIso(ticks: bigint): string | null {
  const t = ticks & TICKS_MASK;
  if (t === 0n) return null;
  const ms = Number((t - EPOCH_TICKS) / 10_000n);
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function expectType(r: FastSerializationReader, type: SerializedType | null, name: string): void {
  if (type?.fullName !== name) r.fail(`expected a ${name}, found ${type?.fullName ?? 'null'}`);
}

function readGraph(r: FastSerializationReader): Omit<GcDump, keyof GcDumpTail | 'is64Bit'> & {
  is64Bit: boolean;
} {
  const totalSize = r.int64();
  const rootIndex = r.int32();
  // Each type takes at least 12 bytes, each node 4: counts beyond the bytes left are malformed.
  const typeCount = r.count('the type count', (r.bytes.length - r.pos) / 12);
  const types: GcDumpType[] = [];
  for (let i = 0; i < typeCount; i++) {
    const name = r.string() ?? '';
    const size = r.int32();
    const module = r.string();
    types.push({ name, size, module });
  }
  const nodeCount = r.count('the node count', (r.bytes.length - r.pos) / 4);
  r.need(nodeCount * 4);
  const nodeOffsets = new Int32Array(nodeCount);
  for (let i = 0; i < nodeCount; i++) nodeOffsets[i] = r.int32();
  const blobLength = r.count('the node data length', r.bytes.length - r.pos - 4);
  const blob = r.bytes.subarray(r.pos, r.pos + blobLength);
  r.pos += blobLength;
  const addressCount = r.count('the address count', (r.bytes.length - r.pos) / 8);
  if (addressCount !== nodeCount && addressCount !== 0) {
    r.fail(`${addressCount} addresses for ${nodeCount} nodes`);
  }
  const addresses = new BigUint64Array(addressCount);
  for (let i = 0; i < addressCount; i++) addresses[i] = BigInt.asUintN(64, r.bigInt64());
  let is64Bit = true;
  // `serializer.WriteTagged(Is64Bit)`: a Byte tag and the byte, before the graph's EndObject.
  if (r.bytes[r.pos] === Tag.Byte) {
    r.tag();
    is64Bit = r.bool();
  }
  if (rootIndex < 0 || rootIndex >= Math.max(1, nodeCount)) r.fail(`root node ${rootIndex}`);
  return { totalSize, rootIndex, types, nodeCount, nodeOffsets, blob, addresses, is64Bit };
}

type GcDumpTail = Pick<
  GcDump,
  | 'countMultiplier'
  | 'sizeMultiplier'
  | 'timeCollected'
  | 'processName'
  | 'processId'
  | 'machineName'
  | 'totalProcessCommit'
  | 'totalProcessWorkingSet'
>;

/** DotNetHeapInfo: the GC segments (skipped: the graph is what is read). */
function skipHeapInfo(r: FastSerializationReader): void {
  const info = r.beginObject();
  if (info === null) return;
  r.int64();
  const segments = r.count('the segment count', (r.bytes.length - r.pos) / 8);
  for (let i = 0; i < segments; i++) {
    const segment = r.beginObject();
    if (segment === null) continue;
    // Start, End, Gen0End..Gen3End, and Gen4End from version 1 (GCHeapDump.cs).
    const longs = segment.version >= 1 ? 7 : 6;
    r.need(longs * 8);
    r.pos += longs * 8;
    r.endObject(segment.fullName);
  }
  r.endObject(info.fullName);
}

/** Reads a whole `.gcdump` held in memory; `file` names it in errors. */
export function readGcDump(bytes: Uint8Array, file: string): GcDump {
  const r = new FastSerializationReader(bytes, file);
  r.header();
  expectType(r, r.beginObject(), 'GCHeapDump');
  const graphType = r.beginObject();
  expectType(r, graphType, 'Graphs.MemoryGraph');
  const graph = readGraph(r);
  r.endObject('the memory graph');
  r.bool();
  const countMultiplier = r.float32();
  const sizeMultiplier = r.float32();
  const js = r.beginObject();
  if (js !== null) r.endObject(js.fullName);
  skipHeapInfo(r);
  r.string();
  const timeCollected = ticksToIso(r.bigInt64());
  const machineName = r.string();
  const processName = r.string();
  const processId = r.int32();
  const totalProcessCommit = r.int64();
  const totalProcessWorkingSet = r.int64();
  return {
    ...graph,
    countMultiplier,
    sizeMultiplier,
    timeCollected,
    processName,
    processId,
    machineName,
    totalProcessCommit,
    totalProcessWorkingSet,
  };
}

/** Graph.cs `ReadCompressedInt`: 7 bits a byte, high bit set on all but the last, signed. */
function compressedInt(blob: Uint8Array, at: { pos: number }): number {
  let b = blob[at.pos++] ?? 0;
  // The first byte's 7 bits, sign-extended (`b << 25 >> 25`).
  let value = (b << 25) >> 25;
  for (let i = 0; i < 4 && (b & 0x80) !== 0; i++) {
    b = blob[at.pos++] ?? 0;
    value = (value << 7) + (b & 0x7f);
  }
  return value;
}

/** The type and size of node `index` (no children: the cheap read a histogram needs). */
export function nodeTypeAndSize(dump: GcDump, index: number): { type: number; size: number } {
  const at = { pos: dump.nodeOffsets[index] ?? 0 };
  const typeAndSize = compressedInt(dump.blob, at);
  const type = typeAndSize >> 1;
  const size =
    (typeAndSize & 1) !== 0 ? compressedInt(dump.blob, at) : (dump.types[type]?.size ?? 0);
  return { type, size };
}

/** Node `index` with its children (node indexes). */
export function readNode(dump: GcDump, index: number): GcDumpNode {
  const at = { pos: dump.nodeOffsets[index] ?? 0 };
  const typeAndSize = compressedInt(dump.blob, at);
  const type = typeAndSize >> 1;
  const size =
    (typeAndSize & 1) !== 0 ? compressedInt(dump.blob, at) : (dump.types[type]?.size ?? 0);
  const count = compressedInt(dump.blob, at);
  const children: number[] = [];
  for (let i = 0; i < count && at.pos <= dump.blob.length; i++) {
    const child = index + compressedInt(dump.blob, at);
    if (child >= 0 && child < dump.nodeCount) children.push(child);
  }
  return { type, size, children };
}
