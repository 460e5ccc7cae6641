// Where a symbol file sits in a store or a plain folder. Symbol stores (symstore, Microsoft's
// server, Breakpad/Crashpad uploads, rust-minidump's breakpad-symbols) key a file by its name
// and an id: `NAME.pdb/GUIDAGE/NAME.pdb` (the PDB), `NAME.pdb/GUIDAGE/NAME.pd_` (the same,
// CAB-compressed), `NAME.pdb/GUIDAGE/NAME.sym` (Breakpad text symbols), and for images
// `NAME.exe/TIMESTAMPSIZE/NAME.exe`. A two-tier store (one with an `index2.txt` at its root)
// puts the first two characters of NAME in front: `na/NAME.pdb/GUIDAGE/NAME.pdb`.
// https://learn.microsoft.com/windows/win32/debug/using-symstore
// The name and id come from dumps: they must be safe path segments (safe-name.ts), checked here
// again so that no caller can build a path that leaves the store.
import { BadSymbolsError } from '../errors.js';
import { safeKey } from './safe-name.js';

export type SymbolFileFormat = 'pdb' | 'cab' | 'breakpad' | 'image';

export interface SymbolKey {
  /** File name the store keys on: the PDB name from CodeView, or the image name. */
  name: string;
  /** GUID+age (PDB, .sym) or TIMESTAMP+SIZEOFIMAGE (image). */
  id: string;
}

export interface StoreCandidate {
  /** `/`-separated path relative to the store root (also the URL path on an HTTP store). */
  relative: string;
  format: SymbolFileFormat;
}

/** `symcrash.pdb` → `symcrash.sym` (Breakpad names its file after the PDB, minus `.pdb`). */
export function breakpadName(pdbName: string): string {
  return /\.pdb$/i.test(pdbName) ? `${pdbName.slice(0, -4)}.sym` : `${pdbName}.sym`;
}

/** `symcrash.pdb` → `symcrash.pd_`: the compressed name replaces the last character with `_`. */
export function compressedName(name: string): string {
  return name.length === 0 ? name : `${name.slice(0, -1)}_`;
}

/** Candidates in one store, in the order they are tried: plain file, compressed, Breakpad. */
export function storeCandidates(
  key: SymbolKey,
  options: { twoTier: boolean; image?: boolean },
): StoreCandidate[] {
  assertSafe(key);
  const prefix = options.twoTier ? `${key.name.slice(0, 2).toLowerCase()}/` : '';
  const dir = `${prefix}${key.name}/${key.id}`;
  if (options.image === true) {
    return [
      { relative: `${dir}/${key.name}`, format: 'image' },
      { relative: `${dir}/${compressedName(key.name)}`, format: 'cab' },
    ];
  }
  return [
    { relative: `${dir}/${key.name}`, format: 'pdb' },
    { relative: `${dir}/${compressedName(key.name)}`, format: 'cab' },
    { relative: `${dir}/${breakpadName(key.name)}`, format: 'breakpad' },
  ];
}

/**
 * Candidates in a plain folder, as dbghelp searches one: the file itself, then under the image's
 * extension (`dll/`, `symbols/dll/`), then the store layout (a store is a folder too).
 */
export function folderCandidates(
  key: SymbolKey,
  options: { imageExtension?: string; twoTier: boolean; image?: boolean },
): StoreCandidate[] {
  assertSafe(key);
  const format: SymbolFileFormat = options.image === true ? 'image' : 'pdb';
  const flat: StoreCandidate[] = [{ relative: key.name, format }];
  const ext = options.imageExtension?.toLowerCase();
  // Sample: "dll" (the image's extension, a folder name of its own)
  if (ext !== undefined && /^[a-z0-9]{1,16}$/.test(ext)) {
    flat.push({ relative: `${ext}/${key.name}`, format });
    flat.push({ relative: `symbols/${ext}/${key.name}`, format });
  }
  if (options.image !== true) flat.push({ relative: breakpadName(key.name), format: 'breakpad' });
  return [...flat, ...storeCandidates(key, options)];
}

/** The same name with every ASCII letter lower-cased: stores on Windows are case-blind, ext4 is not. */
export function caseVariants(relative: string): string[] {
  const lower = relative.toLowerCase();
  return lower === relative ? [relative] : [relative, lower];
}

function assertSafe(key: SymbolKey): void {
  const safe = safeKey(key);
  if (!safe.ok) throw new BadSymbolsError(key.name, safe.reason);
}
