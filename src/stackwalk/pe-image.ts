// A PE image as the walker needs it: section table (which RVAs are code), the x64 exception
// directory (.pdata RUNTIME_FUNCTIONs, found by binary search with small reads) and the export
// directory. Reads go through ImageBytes, either RVA-addressed (an image mapped in a full dump)
// or file-addressed (a file on disk, mapped through the section table here). Layouts from the PE
// format reference: https://learn.microsoft.com/en-us/windows/win32/debug/pe-format
import type { ImageBytes, ImageView } from './types.js';

export interface PeSection {
  name: string;
  rva: number;
  virtualSize: number;
  fileOffset: number;
  rawSize: number;
  executable: boolean;
}

export interface PeHeaders {
  machine: number;
  timestamp: number;
  sizeOfImage: number;
  is64: boolean;
  sections: PeSection[];
  exportDir: { rva: number; size: number };
  exceptionDir: { rva: number; size: number };
}

const IMAGE_SCN_MEM_EXECUTE = 0x20000000;
const IMAGE_SCN_CNT_CODE = 0x20;
/** Headers live in the first page; more than this is not a PE header we can trust. */
const MAX_HEADER_BYTES = 4096;
/** .pdata entries are read in blocks of this many (12 bytes each). */
const BLOCK_ENTRIES = 256;

/** Parses the DOS, NT and section headers; null when the bytes are not a PE image. */
export async function readPeHeaders(bytes: ImageBytes): Promise<PeHeaders | null> {
  const head = await bytes.read(0, MAX_HEADER_BYTES);
  if (head === null || head.length < 64) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint16(0, true) !== 0x5a4d) return null; // "MZ"
  const pe = view.getUint32(60, true);
  if (pe + 24 > head.length || view.getUint32(pe, true) !== 0x4550) return null; // "PE\0\0"
  const machine = view.getUint16(pe + 4, true);
  const sectionCount = view.getUint16(pe + 6, true);
  const timestamp = view.getUint32(pe + 8, true);
  const optionalSize = view.getUint16(pe + 20, true);
  const opt = pe + 24;
  if (opt + 2 > head.length) return null;
  const magic = view.getUint16(opt, true);
  const is64 = magic === 0x20b;
  if (!is64 && magic !== 0x10b) return null;
  if (opt + 60 > head.length) return null;
  const sizeOfImage = view.getUint32(opt + 56, true);
  const dirCountAt = opt + (is64 ? 108 : 92);
  const dirs = dirCountAt + 4;
  const dirCount = dirCountAt + 4 <= head.length ? view.getUint32(dirCountAt, true) : 0;
  const dir = (index: number) =>
    index < dirCount && dirs + index * 8 + 8 <= head.length
      ? {
          rva: view.getUint32(dirs + index * 8, true),
          size: view.getUint32(dirs + index * 8 + 4, true),
        }
      : { rva: 0, size: 0 };
  const sections: PeSection[] = [];
  const table = opt + optionalSize;
  for (let i = 0; i < Math.min(sectionCount, 96) && table + i * 40 + 40 <= head.length; i++) {
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
  };
}

export interface RuntimeFunction {
  begin: number;
  end: number;
  unwindInfo: number;
}

/** An ImageView over ImageBytes with parsed headers. Caches .pdata blocks it has read. */
export class PeImage implements ImageView {
  readonly origin: string;
  readonly path?: string;
  readonly headers: PeHeaders;
  readonly #bytes: ImageBytes;
  readonly #blocks = new Map<number, Promise<Uint8Array | null>>();
  readonly #pdataCount: number;

  constructor(bytes: ImageBytes, headers: PeHeaders) {
    this.#bytes = bytes;
    this.headers = headers;
    this.origin = bytes.origin;
    if (bytes.path !== undefined) this.path = bytes.path;
    this.#pdataCount = headers.is64 ? Math.floor(headers.exceptionDir.size / 12) : 0;
  }

  static async open(bytes: ImageBytes): Promise<PeImage | null> {
    const headers = await readPeHeaders(bytes);
    return headers === null ? null : new PeImage(bytes, headers);
  }

  async readRva(rva: number, length: number): Promise<Uint8Array | null> {
    if (rva < 0 || length <= 0) return null;
    if (this.#bytes.layout === 'mapped') return this.#bytes.read(rva, length);
    if (rva < 4096) return this.#bytes.read(rva, length); // headers: file offset = RVA
    const section = this.headers.sections.find(
      (s) => rva >= s.rva && rva < s.rva + Math.max(s.virtualSize, s.rawSize),
    );
    if (!section) return null;
    const inSection = rva - section.rva;
    if (inSection >= section.rawSize) return new Uint8Array(length); // zero-filled tail (.bss)
    const available = Math.min(length, section.rawSize - inSection);
    return this.#bytes.read(section.fileOffset + inSection, available);
  }

  isExecutable(rva: number): boolean {
    return this.headers.sections.some(
      (s) => s.executable && rva >= s.rva && rva < s.rva + Math.max(s.virtualSize, s.rawSize),
    );
  }

  /** Binary search of the sorted RUNTIME_FUNCTION table. */
  async runtimeFunction(rva: number): Promise<RuntimeFunction | null> {
    let low = 0;
    let high = this.#pdataCount - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const entry = await this.#entry(mid);
      if (entry === null) return null;
      if (rva < entry.begin) high = mid - 1;
      else if (rva >= entry.end) low = mid + 1;
      else return entry;
    }
    return null;
  }

  async #entry(index: number): Promise<RuntimeFunction | null> {
    const block = Math.floor(index / BLOCK_ENTRIES);
    let loading = this.#blocks.get(block);
    if (!loading) {
      const first = block * BLOCK_ENTRIES;
      const count = Math.min(BLOCK_ENTRIES, this.#pdataCount - first);
      loading = this.readRva(this.headers.exceptionDir.rva + first * 12, count * 12);
      this.#blocks.set(block, loading);
    }
    const bytes = await loading;
    const at = (index % BLOCK_ENTRIES) * 12;
    if (bytes === null || at + 12 > bytes.length) return null;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return {
      begin: view.getUint32(at, true),
      end: view.getUint32(at + 4, true),
      unwindInfo: view.getUint32(at + 8, true),
    };
  }
}
