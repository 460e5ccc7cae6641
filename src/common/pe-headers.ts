// The one PE header reader of the dump side (symbolic's model: one `PeObject` read once and used
// by the unwinder and by the debug-id lookup alike, symbolic-debuginfo/src/pe.rs): DOS, NT and
// section headers, the data directories the walker and the supplier need, and the image's code id.
// Layouts from the PE format reference: https://learn.microsoft.com/windows/win32/debug/pe-format
import { codeIdOf } from './module-identity.js';

/** Bytes of an image by offset (file offsets or RVAs: the headers are at the same place). */
export interface PeBytes {
  read(offset: number, length: number): Promise<Uint8Array | null>;
}

export interface PeSection {
  name: string;
  rva: number;
  virtualSize: number;
  fileOffset: number;
  rawSize: number;
  executable: boolean;
}

export interface PeDirectory {
  rva: number;
  size: number;
}

export interface PeHeaders {
  machine: number;
  timestamp: number;
  sizeOfImage: number;
  is64: boolean;
  sections: PeSection[];
  exportDir: PeDirectory;
  exceptionDir: PeDirectory;
  debugDir: PeDirectory;
  /** The symbol-server key of the image itself (codeIdOf). */
  codeId: string;
}

const IMAGE_SCN_MEM_EXECUTE = 0x20000000;
const IMAGE_SCN_CNT_CODE = 0x20;
/** Headers normally fit the first page; they may run on, but never past this. */
const FIRST_READ = 4096;
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_SECTIONS = 96;

/** The headers, or why the bytes are not a PE image (`no MZ header`, `no PE signature`, …). */
export async function parsePeHeaders<B extends PeBytes>(bytes: B): Promise<PeHeaders | string> {
  let head = await bytes.read(0, FIRST_READ);
  if (head === null || head.length < 64) return 'no MZ header';
  let view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint16(0, true) !== 0x5a4d) return 'no MZ header'; // "MZ"
  const pe = view.getUint32(60, true);
  if (pe + 24 > MAX_HEADER_BYTES) return 'no PE signature';
  if (pe + 24 > head.length) {
    head = (await bytes.read(0, MAX_HEADER_BYTES)) ?? head;
    view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  }
  if (pe + 24 > head.length || view.getUint32(pe, true) !== 0x4550) return 'no PE signature';
  const machine = view.getUint16(pe + 4, true);
  const sectionCount = view.getUint16(pe + 6, true);
  const timestamp = view.getUint32(pe + 8, true);
  const optionalSize = view.getUint16(pe + 20, true);
  const opt = pe + 24;
  const table = opt + optionalSize;
  const end = table + Math.min(sectionCount, MAX_SECTIONS) * 40;
  if (end > head.length && head.length < MAX_HEADER_BYTES) {
    head = (await bytes.read(0, Math.min(end, MAX_HEADER_BYTES))) ?? head;
    view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  }
  if (opt + 60 > head.length) return 'headers run past the bytes there are';
  const magic = view.getUint16(opt, true);
  const is64 = magic === 0x20b;
  if (!is64 && magic !== 0x10b) return `optional header magic 0x${magic.toString(16)}`;
  const sizeOfImage = view.getUint32(opt + 56, true);
  const dirCountAt = opt + (is64 ? 108 : 92);
  const dirs = dirCountAt + 4;
  const dirCount = dirCountAt + 4 <= head.length ? view.getUint32(dirCountAt, true) : 0;
  const bytesOf = head;
  const dir = (index: number): PeDirectory =>
    index < dirCount && dirs + index * 8 + 8 <= Math.min(bytesOf.length, table)
      ? {
          rva: view.getUint32(dirs + index * 8, true),
          size: view.getUint32(dirs + index * 8 + 4, true),
        }
      : { rva: 0, size: 0 };
  const sections: PeSection[] = [];
  for (
    let i = 0;
    i < Math.min(sectionCount, MAX_SECTIONS) && table + i * 40 + 40 <= head.length;
    i++
  ) {
    const at = table + i * 40;
    let name = '';
    for (let c = 0; c < 8 && head[at + c] !== 0; c++)
      name += String.fromCharCode(head[at + c] ?? 0);
    const characteristics = view.getUint32(at + 36, true);
    sections.push({
      name,
      virtualSize: view.getUint32(at + 8, true),
      rva: view.getUint32(at + 12, true),
      rawSize: view.getUint32(at + 16, true),
      fileOffset: view.getUint32(at + 20, true),
      executable: (characteristics & (IMAGE_SCN_MEM_EXECUTE | IMAGE_SCN_CNT_CODE)) !== 0,
    });
  }
  return {
    machine,
    timestamp,
    sizeOfImage,
    is64,
    sections,
    exportDir: dir(0),
    exceptionDir: dir(3),
    debugDir: dir(6),
    codeId: codeIdOf(timestamp, sizeOfImage),
  };
}

/** Parses the DOS, NT and section headers; null when the bytes are not a PE image. */
export async function readPeHeaders<B extends PeBytes>(bytes: B): Promise<PeHeaders | null> {
  const headers = await parsePeHeaders(bytes);
  return typeof headers === 'string' ? null : headers;
}

/** The file offset of an RVA range inside one section's raw data, if it is there. */
export function fileOffsetOf(headers: PeHeaders, rva: number, size: number): number | undefined {
  for (const s of headers.sections) {
    if (rva >= s.rva && rva + size <= s.rva + Math.max(s.rawSize, s.virtualSize)) {
      return s.fileOffset + (rva - s.rva);
    }
  }
  return undefined;
}
