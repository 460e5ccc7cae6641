// One description of a loaded module, shared by every floor of the dump side: the walker finds
// frames in it, the supplier finds its image and symbol files by it, the processor hands it on
// each frame. On the model of rust-minidump's `Module` trait (minidump-common/src/traits.rs:
// base_address, size, code_file, code_identifier, debug_file, debug_identifier), with the
// symbol-server keys computed here and nowhere else.

/** The CodeView (PDB) identity of a module's build, when the dump or the image records one. */
export interface ModuleCodeView {
  /** `av.pdb`. */
  pdbName?: string;
  /** The PDB path as the linker wrote it. */
  pdbPath?: string;
  /** Registry-form GUID, lower case with dashes. */
  guid?: string;
  age?: number;
  /** Symbol-server debug id: GUID (32 upper-case hex) + age in hex. */
  debugId?: string;
}

/** A loaded module: enough to find its image and its symbol files, and to place an address. */
export interface ModuleIdentity {
  /** File name, `av.exe`. */
  name: string;
  /** Full path as the dump records it (`Z:\tmp\av.exe`, `C:\windows\system32\ntdll.dll`). */
  path: string;
  base: bigint;
  /** SizeOfImage. */
  size: number;
  /** PE TimeDateStamp (a link time or, for reproducible builds, a hash). */
  timestamp: number;
  checksum?: number;
  /** Symbol-server code id (codeIdOf). */
  codeId?: string;
  /** CodeView identity of the matching PDB, when recorded. */
  codeView?: ModuleCodeView;
}

/**
 * The symbol-server key of an image: TimeDateStamp as 8 upper-case hex digits, then SizeOfImage
 * in hex without padding, as symstore files images (`av.exe/5F3A1B2C1f000/av.exe`;
 * https://learn.microsoft.com/windows/win32/debug/using-symstore) and as symbolic's
 * `PeObject::code_id` formats it (the timestamp's case differs there; stores are case-blind).
 */
export function codeIdOf(timestamp: number, sizeOfImage: number): string {
  return `${(timestamp >>> 0).toString(16).toUpperCase().padStart(8, '0')}${(sizeOfImage >>> 0).toString(16)}`;
}

/** The module's code id: the one it records, else computed from its stamp and size. */
export function moduleCodeId(
  module: Pick<ModuleIdentity, 'codeId' | 'timestamp' | 'size'>,
): string {
  return module.codeId ?? codeIdOf(module.timestamp, module.size);
}

/** True when `address` lies inside the module's image. */
export function moduleContains(
  module: Pick<ModuleIdentity, 'base' | 'size'>,
  address: bigint,
): boolean {
  return address >= module.base && address < module.base + BigInt(module.size);
}
