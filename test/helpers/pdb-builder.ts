// Builds a small PDB 7.0 from scratch for reader tests that must run on a bare machine (no clang,
// no Wine): the info stream (GUID, age, `/names`), a DBI stream (one module per object file,
// section contributions, the section-header stream), each module's symbol stream (S_GPROC32
// records and C13 line tables), publics and the symbol-record stream, written into an MSF
// container by msf-writer.ts. Layouts: https://llvm.org/docs/PDB/PdbStream.html,
// https://llvm.org/docs/PDB/DbiStream.html, https://llvm.org/docs/PDB/ModiStream.html,
// https://llvm.org/docs/PDB/PublicStream.html, https://llvm.org/docs/PDB/CodeViewSymbols.html.
// Each part can be edited before writing (`edit`), so tests can build exactly the hostile file
// they describe.
import { writeMsf, type WriteMsfOptions } from './msf-writer.js';

export interface BuiltProc {
  name: string;
  rva: number;
  size: number;
  /** Line starts: [rva offset from the proc, line]. */
  lines?: [number, number][];
}

export interface BuiltModule {
  name: string;
  procs: BuiltProc[];
  /** The source file the lines are in. */
  file?: string;
}

export interface PdbSpec {
  /** 32 hex digits. */
  guid: string;
  age: number;
  modules: BuiltModule[];
  /** Public symbols (functions with external linkage). */
  publics: { name: string; rva: number }[];
  /** Raw edits of the streams before they are written (index = stream number). */
  edit?: (streams: Buffer[], layout: PdbStreamLayout) => void;
  msf?: WriteMsfOptions;
}

export interface PdbStreamLayout {
  dbi: number;
  names: number;
  sectionHeaders: number;
  publics: number;
  symRecords: number;
  /** Stream of module i. */
  modules: number[];
  /** Offset in the DBI stream of module i's 64-byte entry. */
  moduleEntries: number[];
  /** Offset in module i's stream where its C13 line bytes start, and their length. */
  c13: { at: number; length: number }[];
}

const TEXT_RVA = 0x1000;
const S_GPROC32 = 0x1110;
const S_END = 0x0006;
const S_PUB32 = 0x110e;

/** The debug id a CodeView record names this PDB by: GUID + age in hex. */
export function debugIdOf(spec: Pick<PdbSpec, 'guid' | 'age'>): string {
  return `${spec.guid.toUpperCase()}${spec.age.toString(16).toUpperCase()}`;
}

/** Writes the PDB to `path`; returns its stream layout. */
export function writePdb(path: string, spec: PdbSpec): PdbStreamLayout {
  const names = stringTable(spec.modules.map((m) => m.file ?? `${m.name}.c`));
  const layout: PdbStreamLayout = {
    dbi: 3,
    names: 4,
    sectionHeaders: 5,
    publics: 6,
    symRecords: 7,
    modules: spec.modules.map((_, i) => 8 + i),
    moduleEntries: [],
    c13: [],
  };
  const streams: Buffer[] = [
    Buffer.alloc(0),
    infoStream(spec, layout.names),
    tpiStream(),
    Buffer.alloc(0), // DBI, below (it needs the module streams' sizes)
    names.stream,
    sectionHeaders(),
  ];
  const records = symRecords(spec.publics);
  streams.push(publicsStream(records.offsets), records.stream);
  const moduleStreams = spec.modules.map((m) => {
    const built = moduleStream(m, names.offsetOf(m.file ?? `${m.name}.c`));
    layout.c13.push({ at: built.symBytes, length: built.c13Bytes });
    return built;
  });
  for (const m of moduleStreams) streams.push(m.stream);
  streams[3] = dbiStream(spec, layout, moduleStreams);
  spec.edit?.(streams, layout);
  writeMsf(path, streams, spec.msf);
  return layout;
}

function infoStream(spec: PdbSpec, namesStream: number): Buffer {
  const head = Buffer.alloc(28);
  head.writeUInt32LE(20000404, 0);
  head.writeUInt32LE(0x5f000000, 4);
  head.writeUInt32LE(spec.age, 8);
  guidBytes(spec.guid).copy(head, 12);
  // Named-stream map with one entry, "/names".
  const strings = Buffer.from('/names\0', 'latin1');
  const map = Buffer.alloc(4 + strings.length + 8 + 4 + 4 + 4 + 8);
  let at = map.writeUInt32LE(strings.length, 0);
  at += strings.copy(map, at);
  at = map.writeUInt32LE(1, at); // count
  at = map.writeUInt32LE(1, at); // capacity
  at = map.writeUInt32LE(1, at); // present words
  at = map.writeUInt32LE(1, at); // present bits: entry 0
  at = map.writeUInt32LE(0, at); // deleted words
  at = map.writeUInt32LE(0, at); // key: offset of "/names"
  map.writeUInt32LE(namesStream, at);
  return Buffer.concat([head, map]);
}

function guidBytes(hex: string): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(Number.parseInt(hex.slice(0, 8), 16), 0);
  b.writeUInt16LE(Number.parseInt(hex.slice(8, 12), 16), 4);
  b.writeUInt16LE(Number.parseInt(hex.slice(12, 16), 16), 6);
  Buffer.from(hex.slice(16, 32), 'hex').copy(b, 8);
  return b;
}

function tpiStream(): Buffer {
  const b = Buffer.alloc(56);
  b.writeUInt32LE(20040203, 0);
  b.writeUInt32LE(56, 4);
  b.writeUInt32LE(0x1000, 8);
  b.writeUInt32LE(0x1000, 12);
  return b;
}

function stringTable(files: string[]): { stream: Buffer; offsetOf(file: string): number } {
  const offsets = new Map<string, number>();
  const parts: Buffer[] = [Buffer.from([0])];
  let size = 1;
  for (const file of files) {
    if (offsets.has(file)) continue;
    offsets.set(file, size);
    const bytes = Buffer.from(`${file}\0`, 'utf8');
    parts.push(bytes);
    size += bytes.length;
  }
  const head = Buffer.alloc(12);
  head.writeUInt32LE(0xeffeeffe, 0);
  head.writeUInt32LE(1, 4);
  head.writeUInt32LE(size, 8);
  return { stream: Buffer.concat([head, ...parts]), offsetOf: (f) => offsets.get(f) ?? 0 };
}

function sectionHeaders(): Buffer {
  const b = Buffer.alloc(40);
  b.write('.text', 0, 'latin1');
  b.writeUInt32LE(0x10000, 8); // VirtualSize
  b.writeUInt32LE(TEXT_RVA, 12); // VirtualAddress
  b.writeUInt32LE(0x60000020, 36); // Characteristics: CODE | MEM_EXECUTE | MEM_READ, as linkers write
  return b;
}

function symRecords(publics: PdbSpec['publics']): { stream: Buffer; offsets: number[] } {
  const parts: Buffer[] = [];
  const offsets: { rva: number; at: number }[] = [];
  let at = 0;
  for (const p of publics) {
    const name = Buffer.from(`${p.name}\0`, 'utf8');
    const length = (14 + name.length + 3) & ~3;
    const r = Buffer.alloc(length);
    r.writeUInt16LE(length - 2, 0);
    r.writeUInt16LE(S_PUB32, 2);
    r.writeUInt32LE(2, 4); // function
    r.writeUInt32LE(p.rva - TEXT_RVA, 8);
    r.writeUInt16LE(1, 12);
    name.copy(r, 14);
    offsets.push({ rva: p.rva, at });
    parts.push(r);
    at += length;
  }
  offsets.sort((a, b) => a.rva - b.rva);
  return { stream: Buffer.concat(parts), offsets: offsets.map((o) => o.at) };
}

function publicsStream(offsets: number[]): Buffer {
  const head = Buffer.alloc(28);
  head.writeUInt32LE(0, 0); // hash bytes
  head.writeUInt32LE(offsets.length * 4, 4); // address map bytes
  const map = Buffer.alloc(offsets.length * 4);
  offsets.forEach((o, i) => map.writeUInt32LE(o, i * 4));
  return Buffer.concat([head, map]);
}

function moduleStream(
  m: BuiltModule,
  fileNameOffset: number,
): { stream: Buffer; symBytes: number; c13Bytes: number } {
  const symbols: Buffer[] = [Buffer.from([4, 0, 0, 0])]; // CV_SIGNATURE_C13
  for (const p of m.procs) {
    const name = Buffer.from(`${p.name}\0`, 'utf8');
    const length = (39 + name.length + 3) & ~3;
    const r = Buffer.alloc(length);
    r.writeUInt16LE(length - 2, 0);
    r.writeUInt16LE(S_GPROC32, 2);
    r.writeUInt32LE(p.size, 16);
    r.writeUInt32LE(p.rva - TEXT_RVA, 32);
    r.writeUInt16LE(1, 36);
    name.copy(r, 39);
    const end = Buffer.alloc(4);
    end.writeUInt16LE(2, 0);
    end.writeUInt16LE(S_END, 2);
    symbols.push(r, end);
  }
  const sym = Buffer.concat(symbols);
  // C13: one file checksum entry, then one DEBUG_S_LINES subsection per proc with lines.
  const checksums = Buffer.alloc(8);
  checksums.writeUInt32LE(fileNameOffset, 0);
  const subsections: Buffer[] = [subsection(0xf4, checksums)];
  for (const p of m.procs) {
    if (p.lines === undefined || p.lines.length === 0) continue;
    const body = Buffer.alloc(12 + 12 + p.lines.length * 8);
    body.writeUInt32LE(p.rva - TEXT_RVA, 0);
    body.writeUInt16LE(1, 4);
    body.writeUInt32LE(p.size, 8);
    body.writeUInt32LE(0, 12); // file id: offset of the checksum entry
    body.writeUInt32LE(p.lines.length, 16);
    body.writeUInt32LE(12 + p.lines.length * 8, 20);
    p.lines.forEach(([offset, line], i) => {
      body.writeUInt32LE(offset, 24 + i * 8);
      body.writeUInt32LE((line | 0x80000000) >>> 0, 28 + i * 8);
    });
    subsections.push(subsection(0xf2, body));
  }
  const c13 = Buffer.concat(subsections);
  return { stream: Buffer.concat([sym, c13]), symBytes: sym.length, c13Bytes: c13.length };
}

function subsection(kind: number, body: Buffer): Buffer {
  const padded = Buffer.alloc(8 + ((body.length + 3) & ~3));
  padded.writeUInt32LE(kind, 0);
  padded.writeUInt32LE(body.length, 4);
  body.copy(padded, 8);
  return padded;
}

function dbiStream(
  spec: PdbSpec,
  layout: PdbStreamLayout,
  modules: { symBytes: number; c13Bytes: number }[],
): Buffer {
  const entries: Buffer[] = [];
  let at = 64;
  spec.modules.forEach((m, i) => {
    const names = Buffer.from(`${m.name}.obj\0${m.name}.obj\0`, 'utf8');
    const entry = Buffer.alloc((64 + names.length + 3) & ~3);
    entry.writeUInt16LE(0xffff, 4); // its own section contribution: unused here
    entry.writeUInt16LE(layout.modules[i] ?? 0xffff, 34);
    entry.writeUInt32LE(modules[i]?.symBytes ?? 0, 36);
    entry.writeUInt32LE(0, 40);
    entry.writeUInt32LE(modules[i]?.c13Bytes ?? 0, 44);
    names.copy(entry, 64);
    layout.moduleEntries.push(at);
    at += entry.length;
    entries.push(entry);
  });
  const modInfo = Buffer.concat(entries);
  // Section contributions (version 6.0, 28 bytes each): one per module, covering its procs.
  const contributions: Buffer[] = [Buffer.alloc(4)];
  contributions[0]?.writeUInt32LE((0xeffe0000 + 19970605) >>> 0, 0);
  spec.modules.forEach((m, i) => {
    if (m.procs.length === 0) return;
    const start = Math.min(...m.procs.map((p) => p.rva));
    const end = Math.max(...m.procs.map((p) => p.rva + p.size));
    const c = Buffer.alloc(28);
    c.writeUInt16LE(1, 0);
    c.writeInt32LE(start - TEXT_RVA, 4);
    c.writeInt32LE(end - start, 8);
    c.writeUInt16LE(i, 16);
    contributions.push(c);
  });
  const sc = Buffer.concat(contributions);
  const dbg = Buffer.alloc(22, 0xff);
  dbg.writeUInt16LE(layout.sectionHeaders, 10);
  const head = Buffer.alloc(64);
  head.writeInt32LE(-1, 0);
  head.writeUInt32LE(19990903, 4);
  head.writeUInt32LE(spec.age, 8);
  head.writeUInt16LE(0xffff, 12); // global symbols: none
  head.writeUInt16LE(layout.publics, 16);
  head.writeUInt16LE(layout.symRecords, 20);
  head.writeInt32LE(modInfo.length, 24);
  head.writeInt32LE(sc.length, 28);
  head.writeInt32LE(dbg.length, 48);
  head.writeUInt16LE(0x8664, 58);
  return Buffer.concat([head, modInfo, sc, dbg]);
}
