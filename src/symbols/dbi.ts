// The DBI stream (stream 3): its header (age, where the publics and symbol records live), the
// module list (one entry per object file, with the stream of its symbols and line tables), the
// section contributions (which module owns which bytes of which section) and, through the
// optional debug header, the image's section headers (section:offset → RVA).
// Layout: https://llvm.org/docs/PDB/DbiStream.html
import { BadSymbolsError } from '../errors.js';
import type { MsfFile } from './msf.js';

export const DBI_STREAM = 3;
const HEADER_SIZE = 64;
const SC_V60 = 0xeffe0000 + 19970605;
const SC_V2 = 0xeffe0000 + 20140516;
/** Index of the section-header stream in the optional debug header (an array of u16 streams). */
const DBG_SECTION_HEADERS = 5;
const NO_STREAM = 0xffff;

export interface DbiHeader {
  age: number;
  /** The global symbols stream (0xffff: none). */
  globalStream: number;
  publicStream: number;
  symRecordStream: number;
  machine: number;
}

export interface DbiModule {
  index: number;
  name: string;
  objectFile: string;
  /** Stream holding this module's symbols and line tables (undefined: none). */
  stream: number | undefined;
  symBytes: number;
  c11Bytes: number;
  c13Bytes: number;
}

export interface SectionContribution {
  /** 1-based section number, as symbols and contributions use. */
  section: number;
  offset: number;
  size: number;
  module: number;
}

export interface Dbi {
  header: DbiHeader;
  modules: DbiModule[];
  /** Sorted by (section, offset). */
  contributions: SectionContribution[];
  /** RVA of each section, index 0 = section 1. */
  sectionRvas: number[];
  /** Each section's extent and whether it holds code (IMAGE_SCN_MEM_EXECUTE), same order. */
  sections: PdbSection[];
  /** The stream of the section headers (undefined: none). */
  sectionHeaderStream?: number;
}

export interface PdbSection {
  rva: number;
  /** VirtualSize. */
  size: number;
  executable: boolean;
}

export async function readDbi(msf: MsfFile): Promise<Dbi> {
  const bad = (why: string) => new BadSymbolsError(msf.name, `${msf.name}: DBI stream: ${why}`);
  const size = msf.streamSize(DBI_STREAM);
  if (size < HEADER_SIZE) throw bad(`only ${size} bytes`);
  const h = await msf.readStream(DBI_STREAM, 0, HEADER_SIZE, 'DBI header');
  if (h.readInt32LE(0) !== -1) throw bad('an old (pre-7.0) DBI header');
  const header: DbiHeader = {
    age: h.readUInt32LE(8),
    globalStream: h.readUInt16LE(12),
    publicStream: h.readUInt16LE(16),
    symRecordStream: h.readUInt16LE(20),
    machine: h.readUInt16LE(58),
  };
  const lengths = [24, 28, 32, 36, 40, 52, 48].map((at) => h.readInt32LE(at));
  if (lengths.some((n) => n < 0) || HEADER_SIZE + lengths.reduce((a, b) => a + b, 0) > size) {
    throw bad(`substream sizes ${lengths.join('/')} exceed the stream (${size} bytes)`);
  }
  const [modInfoSize = 0, scSize = 0, secMapSize = 0, fileInfoSize = 0, tsmSize = 0, ecSize = 0] =
    lengths;
  const dbgHeaderSize = lengths[6] ?? 0;
  let at = HEADER_SIZE;
  const modInfo = await msf.readStream(DBI_STREAM, at, modInfoSize, 'DBI module info');
  at += modInfoSize;
  const sc = await msf.readStream(DBI_STREAM, at, scSize, 'DBI section contributions');
  at += scSize + secMapSize + fileInfoSize + tsmSize + ecSize;
  const dbgHeader = await msf.readStream(DBI_STREAM, at, dbgHeaderSize, 'DBI debug header');
  const modules = parseModules(modInfo, msf, bad);
  const contributions = parseContributions(sc, modules.length, bad);
  let sections: PdbSection[] = [];
  let sectionHeaderStream: number | undefined;
  if (dbgHeader.length >= (DBG_SECTION_HEADERS + 1) * 2) {
    const stream = dbgHeader.readUInt16LE(DBG_SECTION_HEADERS * 2);
    if (stream !== NO_STREAM) {
      sections = await readSections(msf, stream);
      sectionHeaderStream = stream;
    }
  }
  return {
    header,
    modules,
    contributions,
    sectionRvas: sections.map((s) => s.rva),
    sections,
    ...(sectionHeaderStream === undefined ? {} : { sectionHeaderStream }),
  };
}

function parseModules(b: Buffer, msf: MsfFile, bad: (why: string) => BadSymbolsError): DbiModule[] {
  const modules: DbiModule[] = [];
  let at = 0;
  while (at + 64 <= b.length) {
    const streamRaw = b.readUInt16LE(at + 34);
    const nameEnd = b.indexOf(0, at + 64);
    if (nameEnd === -1) throw bad(`module ${modules.length}: name runs off the substream`);
    const objEnd = b.indexOf(0, nameEnd + 1);
    if (objEnd === -1) throw bad(`module ${modules.length}: object name runs off the substream`);
    const module: DbiModule = {
      index: modules.length,
      name: b.toString('utf8', at + 64, nameEnd),
      objectFile: b.toString('utf8', nameEnd + 1, objEnd),
      stream: streamRaw === NO_STREAM ? undefined : streamRaw,
      symBytes: b.readUInt32LE(at + 36),
      c11Bytes: b.readUInt32LE(at + 40),
      c13Bytes: b.readUInt32LE(at + 44),
    };
    if (module.stream !== undefined) {
      const total = module.symBytes + module.c11Bytes + module.c13Bytes;
      if (total > msf.streamSize(module.stream)) {
        throw bad(
          `module ${module.name} claims ${total} bytes of symbols and lines in a ${msf.streamSize(module.stream)}-byte stream`,
        );
      }
    }
    modules.push(module);
    at = (objEnd + 1 + 3) & ~3;
  }
  return modules;
}

function parseContributions(
  b: Buffer,
  moduleCount: number,
  bad: (why: string) => BadSymbolsError,
): SectionContribution[] {
  if (b.length < 4) return [];
  const version = b.readUInt32LE(0);
  const entrySize = version === SC_V2 ? 32 : version === SC_V60 ? 28 : 0;
  if (entrySize === 0) throw bad(`unknown section contribution version 0x${version.toString(16)}`);
  const out: SectionContribution[] = [];
  for (let at = 4; at + entrySize <= b.length; at += entrySize) {
    const module = b.readUInt16LE(at + 16);
    const size = b.readInt32LE(at + 8);
    if (module >= moduleCount || size <= 0) continue;
    out.push({ section: b.readUInt16LE(at), offset: b.readInt32LE(at + 4), size, module });
  }
  out.sort((x, y) => x.section - y.section || x.offset - y.offset);
  return out;
}

/** IMAGE_SECTION_HEADER (winnt.h): VirtualSize at 8, VirtualAddress at 12, Characteristics at 36. */
async function readSections(msf: MsfFile, stream: number): Promise<PdbSection[]> {
  const size = msf.streamSize(stream);
  const count = Math.min(Math.floor(size / 40), 4096);
  const b = await msf.readStream(stream, 0, count * 40, 'section headers');
  const IMAGE_SCN_MEM_EXECUTE = 0x20000000;
  return Array.from({ length: count }, (_, i) => ({
    rva: b.readUInt32LE(i * 40 + 12),
    size: b.readUInt32LE(i * 40 + 8),
    executable: (b.readUInt32LE(i * 40 + 36) & IMAGE_SCN_MEM_EXECUTE) !== 0,
  }));
}

/** The contribution covering section:offset (binary search), or undefined. */
export function contributionAt(
  list: readonly SectionContribution[],
  section: number,
  offset: number,
): SectionContribution | undefined {
  let lo = 0;
  let hi = list.length - 1;
  let best: SectionContribution | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = list[mid];
    if (c === undefined) break;
    if (c.section < section || (c.section === section && c.offset <= offset)) {
      best = c;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (best?.section !== section || offset >= best.offset + best.size) return undefined;
  return best;
}
