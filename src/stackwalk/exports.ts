// Names without PDBs: the image's export table names an address as the nearest export at or
// below it (`kernelbase!RaiseException+0x5a`), as cdb does when it has no symbols. IMAGE_EXPORT_
// DIRECTORY layout: https://learn.microsoft.com/en-us/windows/win32/debug/pe-format#export-directory-table
// Forwarders (function RVAs inside the export directory) are strings, not code, and are skipped.
import type { PeImage } from './pe-image.js';
import type { ImageView, ModuleRef, SymbolHit, SymbolProvider } from './types.js';

/** A DLL with more names than this is corrupt (the largest system DLLs export ~4,000). */
const MAX_NAMES = 65536;
const MAX_NAME_LENGTH = 512;
/** Export directories bigger than this are read piecemeal (the largest real ones are ~100 KB). */
const MAX_DIRECTORY_BYTES = 4 * 1024 * 1024;

export interface ExportEntry {
  rva: number;
  name: string;
}

/** Sorted (by RVA) named exports of an image; empty when it has none or they are unreadable. */
export async function readExports(image: PeImage): Promise<ExportEntry[]> {
  const dir = image.headers.exportDir;
  if (dir.rva === 0 || dir.size < 40) return [];
  // The tables and the name strings normally sit inside the export directory's own range: one
  // read of it serves every name (a DLL exports thousands); anything outside is read on its own.
  const whole = dir.size <= MAX_DIRECTORY_BYTES ? await image.readRva(dir.rva, dir.size) : null;
  const local: ImageView = {
    origin: image.origin,
    isExecutable: (rva) => image.isExecutable(rva),
    runtimeFunction: (rva) => image.runtimeFunction(rva),
    readRva: (rva, length) =>
      whole !== null && rva >= dir.rva && rva + length <= dir.rva + whole.length
        ? Promise.resolve(whole.subarray(rva - dir.rva, rva - dir.rva + length))
        : image.readRva(rva, length),
  };
  const head = await local.readRva(dir.rva, 40);
  if (head === null || head.length < 40) return [];
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const functionCount = Math.min(view.getUint32(20, true), MAX_NAMES);
  const nameCount = Math.min(view.getUint32(24, true), MAX_NAMES);
  const functions = await table(local, view.getUint32(28, true), functionCount * 4);
  const names = await table(local, view.getUint32(32, true), nameCount * 4);
  const ordinals = await table(local, view.getUint32(36, true), nameCount * 2);
  if (functions === null || names === null || ordinals === null) return [];
  const entries: ExportEntry[] = [];
  for (let i = 0; i < nameCount; i++) {
    const ordinal = ordinals.getUint16(i * 2, true);
    if (ordinal >= functionCount) continue;
    const rva = functions.getUint32(ordinal * 4, true);
    if (rva === 0 || (rva >= dir.rva && rva < dir.rva + dir.size)) continue; // forwarder
    if (!image.isExecutable(rva)) continue; // exported data, not a function
    const name = await cString(local, names.getUint32(i * 4, true));
    if (name !== null && name !== '') entries.push({ rva, name });
  }
  entries.sort((a, b) => a.rva - b.rva || a.name.localeCompare(b.name));
  return entries;
}

async function table(image: ImageView, rva: number, length: number): Promise<DataView | null> {
  if (length === 0) return new DataView(new ArrayBuffer(0));
  const bytes = await image.readRva(rva, length);
  if (bytes === null || bytes.length < length) return null;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

async function cString(image: ImageView, rva: number): Promise<string | null> {
  const bytes = await image.readRva(rva, 64);
  if (bytes === null) return null;
  let end = bytes.indexOf(0);
  if (end >= 0) return latin1(bytes.subarray(0, end));
  const longer = await image.readRva(rva, MAX_NAME_LENGTH);
  if (longer === null) return null;
  end = longer.indexOf(0);
  return end < 0 ? null : latin1(longer.subarray(0, end));
}

/** The nearest export at or below `rva`, as a SymbolHit. */
export function nearestExport(entries: readonly ExportEntry[], rva: number): SymbolHit | undefined {
  let low = 0;
  let high = entries.length - 1;
  let best: ExportEntry | undefined;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const entry = entries[mid]!;
    if (entry.rva <= rva) {
      best = entry;
      low = mid + 1;
    } else high = mid - 1;
  }
  return best && { function: best.name, offset: rva - best.rva, source: 'export' };
}

/**
 * Export tables by image object: an image shared by the dumps of a batch (the supplier's image
 * cache hands the same PeImage to every dump that loaded that build) is parsed once per batch,
 * and its table goes when the cache lets the image go.
 */
const TABLES = new WeakMap<PeImage, Promise<ExportEntry[]>>();

function exportsOf(image: PeImage): Promise<ExportEntry[]> {
  let table = TABLES.get(image);
  if (!table) {
    table = readExports(image);
    TABLES.set(image, table);
  }
  return table;
}

/** A SymbolProvider over export tables, one parse per image, images found by `imageOf`. */
export class ExportSymbolProvider implements SymbolProvider {
  readonly #imageOf: (module: ModuleRef) => Promise<PeImage | undefined>;
  readonly #tables = new Map<bigint, Promise<ExportEntry[]>>();
  /** Tables already read, by module base: answered without a promise. */
  readonly #ready = new Map<bigint, ExportEntry[]>();

  constructor(imageOf: (module: ModuleRef) => Promise<PeImage | undefined>) {
    this.#imageOf = imageOf;
  }

  lookup(module: ModuleRef, rva: number): SymbolHit | undefined | Promise<SymbolHit | undefined> {
    const ready = this.#ready.get(module.base);
    if (ready !== undefined) return nearestExport(ready, rva);
    return this.#lookup(module, rva);
  }

  async #lookup(module: ModuleRef, rva: number): Promise<SymbolHit | undefined> {
    const key = module.base;
    let entries = this.#tables.get(key);
    if (!entries) {
      entries = this.#imageOf(module).then((image) => (image ? exportsOf(image) : []));
      this.#tables.set(key, entries);
    }
    const table = await entries;
    this.#ready.set(key, table);
    return nearestExport(table, rva);
  }
}

/** Bytes as Latin-1 text (export names are ASCII), without spreading them into arguments. */
function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}
