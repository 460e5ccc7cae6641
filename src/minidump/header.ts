// MINIDUMP_HEADER: the first 32 bytes (minidumpapiset.h).
import { BadDumpError } from '../errors.js';
import { u32, u64 } from './bytes.js';

export const HEADER_SIZE = 32;
/** "MDMP" read as a little-endian u32. */
export const MDMP_SIGNATURE = 0x504d444d;
/** "MDMP" byte-swapped: a big-endian dump (old PowerPC Macs), which we do not read. */
const MDMP_SIGNATURE_BE = 0x4d444d50;
export const MDMP_VERSION = 0xa793;

export interface MinidumpHeader {
  signature: number;
  /** The whole Version field: the low 16 bits are always 0xa793. */
  version: number;
  /** The high 16 bits of Version: a DbgHelp build value, 0 from Crashpad and Wine. */
  implementationVersion: number;
  streamCount: number;
  directoryRva: number;
  checksum: number;
  /** time_t (UTC seconds) when the dump was written. */
  timeDateStamp: number;
  /** MINIDUMP_TYPE bits the writer says it was asked for. */
  flags: bigint;
}

export function parseHeader(file: string, buf: Buffer, fileSize: number): MinidumpHeader {
  if (fileSize === 0) throw new BadDumpError(file, `${file} is empty (0 bytes), not a minidump`);
  if (buf.length < HEADER_SIZE) {
    throw new BadDumpError(
      file,
      `${file} is ${fileSize} bytes, too short for a minidump header (${HEADER_SIZE} bytes)`,
    );
  }
  const signature = u32(buf, 0);
  if (signature === MDMP_SIGNATURE_BE) {
    throw new BadDumpError(file, `${file} is a big-endian minidump, which is not supported`);
  }
  if (signature !== MDMP_SIGNATURE) {
    // Sample: a text file starting "root" shows as root; "\x7fELF" as .ELF.
    const shown = buf
      .subarray(0, 4)
      .toString('latin1')
      .replace(/[^\x20-\x7e]/g, '.');
    throw new BadDumpError(
      file,
      `${file} is not a minidump: it starts with "${shown}" (0x${signature.toString(16).padStart(8, '0')}), not "MDMP"`,
    );
  }
  const version = u32(buf, 4);
  if ((version & 0xffff) !== MDMP_VERSION) {
    throw new BadDumpError(
      file,
      `${file}: unknown minidump version 0x${(version & 0xffff).toString(16)} (expected 0xa793)`,
    );
  }
  return {
    signature,
    version,
    implementationVersion: version >>> 16,
    streamCount: u32(buf, 8),
    directoryRva: u32(buf, 12),
    checksum: u32(buf, 16),
    timeDateStamp: u32(buf, 20),
    flags: u64(buf, 24),
  };
}
