// CodeView records a module's CvRecord points at (minidumpapiset.h): RSDS (PDB 7.0) and NB10 (PDB 2.0)
// give the symbol-server key (pdb name + debug id); BpEL is a Breakpad ELF build id.
import { cString, u16, u32 } from '../bytes.js';

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

export function parseCodeView(buf: Buffer): CodeViewInfo {
  const signature = u32(buf, 0);
  if (signature === RSDS && buf.length >= 24) {
    // The GUID's fields in big-endian order (Data1, Data2, Data3 as numbers, then Data4's eight
    // bytes as they are), turned to hex in one call: every module of every dump has one.
    const guid = Buffer.allocUnsafe(16);
    guid.writeUInt32BE(u32(buf, 4), 0);
    guid.writeUInt16BE(u16(buf, 8), 4);
    guid.writeUInt16BE(u16(buf, 10), 6);
    buf.copy(guid, 8, 12, 20);
    const digits = guid.toString('hex');
    const age = u32(buf, 20);
    const pdbPath = cString(buf, 24);
    return {
      format: 'RSDS',
      pdbPath,
      pdbName: baseName(pdbPath),
      debugId: `${digits}${age.toString(16)}`.toUpperCase(),
      guid: `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${digits.slice(20)}`,
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
