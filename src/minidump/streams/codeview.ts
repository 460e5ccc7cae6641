// CodeView records a module's CvRecord points at (minidumpapiset.h): RSDS (PDB 7.0) and NB10 (PDB 2.0)
// give the symbol-server key (pdb name + debug id); BpEL is a Breakpad ELF build id.
import { cString, u32 } from '../bytes.js';

const RSDS = 0x53445352;
const NB10 = 0x3031424e;
const BPEL = 0x4c457042;

export interface CodeViewInfo {
  format: 'RSDS' | 'NB10' | 'BpEL' | 'other';
  /** The PDB path as the linker wrote it. */
  pdbPath?: string;
  /** The file-name part of pdbPath: the first component of a symbol-server path. */
  pdbName?: string;
  /** RSDS: GUID as 32 upper-case hex digits then the age in hex (`5A9832E5…B7FF1`). */
  debugId?: string;
  /** RSDS: the GUID in registry form, `{xxxxxxxx-xxxx-…}`-less lower-case with dashes. */
  guid?: string;
  age?: number;
  /** BpEL: the ELF build id in hex. */
  buildId?: string;
}

function hexUpper(value: number, width: number): string {
  return value.toString(16).toUpperCase().padStart(width, '0');
}

/** ASCII codes of the hex digits, lower and upper case. */
const LOWER = Buffer.from('0123456789abcdef', 'latin1');
const UPPER = Buffer.from('0123456789ABCDEF', 'latin1');
/**
 * The RSDS GUID's bytes (at 4..19 of the record) in the order the GUID is written: Data1, Data2
 * and Data3 are little-endian numbers, printed most significant byte first; Data4's eight bytes
 * as they are.
 */
const GUID_ORDER = [7, 6, 5, 4, 9, 8, 11, 10, 12, 13, 14, 15, 16, 17, 18, 19];
/** Where the registry form has its dashes: after Data1, Data2, Data3 and Data4's first 2 bytes. */
const DASH_AFTER = 0b0000_0010_1010_1000; // bits 3, 5, 7, 9: byte indexes 3, 5, 7, 9
/** Text of one GUID form at a time (36 characters, or 32 + an age of up to 8 digits). */
const scratch = Buffer.alloc(40);

/**
 * The RSDS GUID in registry form (`5a9832e5-2872-41c1-838e-d98914e9b7ff`) and the debug id
 * (`5A9832E5287241C1838ED98914E9B7FF1`): each written as ASCII into `scratch` and made one string,
 * not hex text sliced, joined and upper-cased (every module of every dump has one; a heap profile
 * of the peer corpus showed those pieces as a tenth of the module list's allocation).
 */
function rsdsIds(buf: Buffer, age: number): { guid: string; debugId: string } {
  let at = 0;
  for (let i = 0; i < 16; i++) {
    const byte = buf[GUID_ORDER[i]!]!;
    scratch[at++] = LOWER[byte >> 4]!;
    scratch[at++] = LOWER[byte & 15]!;
    if ((DASH_AFTER >> i) & 1) scratch[at++] = 0x2d; // '-'
  }
  const guid = scratch.toString('latin1', 0, at);
  at = 0;
  for (let i = 0; i < 16; i++) {
    const byte = buf[GUID_ORDER[i]!]!;
    scratch[at++] = UPPER[byte >> 4]!;
    scratch[at++] = UPPER[byte & 15]!;
  }
  // The age in hex, no padding (`1`, `2A`).
  let digits = 1;
  while (digits < 8 && age >>> (4 * digits) !== 0) digits++;
  for (let d = digits - 1; d >= 0; d--) scratch[at++] = UPPER[(age >>> (4 * d)) & 15]!;
  return { guid, debugId: scratch.toString('latin1', 0, at) };
}

export function parseCodeView(buf: Buffer): CodeViewInfo {
  const signature = u32(buf, 0);
  if (signature === RSDS && buf.length >= 24) {
    const age = u32(buf, 20);
    const pdbPath = cString(buf, 24);
    const { guid, debugId } = rsdsIds(buf, age);
    return {
      format: 'RSDS',
      pdbPath,
      pdbName: baseName(pdbPath),
      debugId,
      guid,
      age,
    };
  }
  if (signature === NB10 && buf.length >= 16) {
    const timestamp = u32(buf, 8);
    const age = u32(buf, 12);
    const pdbPath = cString(buf, 16);
    return {
      format: 'NB10',
      pdbPath,
      pdbName: baseName(pdbPath),
      debugId: `${hexUpper(timestamp, 8)}${age.toString(16).toUpperCase()}`,
      age,
    };
  }
  if (signature === BPEL) return { format: 'BpEL', buildId: buf.subarray(4).toString('hex') };
  return { format: 'other' };
}

/** The last component of a Windows or POSIX path. */
export function baseName(path: string): string {
  const cut = Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/'));
  return cut === -1 ? path : path.slice(cut + 1);
}
