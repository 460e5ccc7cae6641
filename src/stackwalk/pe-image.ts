// A PE image as the walker needs it: section table (which RVAs are code), the x64 exception
// directory (.pdata RUNTIME_FUNCTIONs, found by binary search with small reads) and the export
// directory. Reads go through ImageBytes, either RVA-addressed (an image mapped in a full dump)
// or file-addressed (a file on disk, mapped through the section table here). Layouts from the PE
// format reference: https://learn.microsoft.com/en-us/windows/win32/debug/pe-format
import { readPeHeaders, type PeHeaders } from '../common/pe-headers.js';
import type { ImageBytes, ImageView } from './types.js';

export type { PeHeaders, PeSection } from '../common/pe-headers.js';
export { readPeHeaders };

/** .pdata entries are read in blocks of this many (12 bytes each). */
const BLOCK_ENTRIES = 256;

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
  /** Blocks read so far (null: not readable), for the synchronous search. */
  readonly #views = new Map<number, DataView | null>();
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
    const now = this.runtimeFunctionNow(rva);
    if (now !== undefined) return now;
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

  /**
   * runtimeFunction() when every block its search visits was read before (an image shared by a
   * batch's dumps: from the second dump on), without a promise or an object per step; undefined
   * when a block must be read first.
   */
  runtimeFunctionNow(rva: number): RuntimeFunction | null | undefined {
    let low = 0;
    let high = this.#pdataCount - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const view = this.#views.get(Math.floor(mid / BLOCK_ENTRIES));
      if (view === undefined) return undefined;
      const at = (mid % BLOCK_ENTRIES) * 12;
      if (view === null || at + 12 > view.byteLength) return null;
      if (rva < view.getUint32(at, true)) high = mid - 1;
      else if (rva >= view.getUint32(at + 4, true)) low = mid + 1;
      else {
        return {
          begin: view.getUint32(at, true),
          end: view.getUint32(at + 4, true),
          unwindInfo: view.getUint32(at + 8, true),
        };
      }
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
    const view =
      bytes === null ? null : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#views.set(block, view);
    const at = (index % BLOCK_ENTRIES) * 12;
    if (view === null || at + 12 > view.byteLength) return null;
    return {
      begin: view.getUint32(at, true),
      end: view.getUint32(at + 4, true),
      unwindInfo: view.getUint32(at + 8, true),
    };
  }
}
