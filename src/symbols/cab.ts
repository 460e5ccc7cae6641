// Cabinet files as symbol servers serve compressed symbols (`NAME.pd_`): one folder, one file,
// MSZIP-compressed. Format: [MS-CAB] (https://learn.microsoft.com/openspecs/exchange_server_protocols/ms-cab)
// and MSZIP: [MS-MCI] (https://learn.microsoft.com/openspecs/exchange_server_protocols/ms-mci):
// each CFDATA block is `CK` + a deflate stream of at most 32 KiB output, whose back-references
// may reach into the previous block's output (so it is inflated with that block as dictionary).
// LZX and Quantum folders are refused with a clear error (no decoder here).
import { constants, inflateRawSync } from 'node:zlib';
import { BadSymbolsError } from '../errors.js';

const HEADER_SIZE = 36;
const FLAG_PREV = 1;
const FLAG_NEXT = 2;
const FLAG_RESERVE = 4;
const MSZIP_BLOCK = 32768;
const COMPRESSION = ['none', 'MSZIP', 'Quantum', 'LZX'] as const;

export interface CabFile {
  name: string;
  data: Buffer;
}

/** True when bytes start like a cabinet (`MSCF`). */
export function isCab(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.toString('latin1', 0, 4) === 'MSCF';
}

/** The first file of a single-folder cabinet, decompressed; at most maxBytes of output. */
export function extractCab(bytes: Buffer, label: string, maxBytes: number): CabFile {
  const bad = (why: string) => new BadSymbolsError(label, `${label}: not a usable cabinet: ${why}`);
  if (bytes.length < HEADER_SIZE || !isCab(bytes)) throw bad('no MSCF header');
  const folders = bytes.readUInt16LE(26);
  const files = bytes.readUInt16LE(28);
  const flags = bytes.readUInt16LE(30);
  const firstFile = bytes.readUInt32LE(16);
  if (folders === 0 || files === 0) throw bad(`${folders} folders, ${files} files`);
  if (flags & (FLAG_PREV | FLAG_NEXT)) throw bad('part of a multi-cabinet set');
  let at = HEADER_SIZE;
  let dataReserve = 0;
  if (flags & FLAG_RESERVE) {
    if (at + 4 > bytes.length) throw bad('cut short');
    const headerReserve = bytes.readUInt16LE(at);
    dataReserve = bytes[at + 3] ?? 0;
    at += 4 + headerReserve;
  }
  if (at + 8 > bytes.length || firstFile + 16 > bytes.length) throw bad('cut short');
  const dataStart = bytes.readUInt32LE(at);
  const blockCount = bytes.readUInt16LE(at + 4);
  const compression = bytes.readUInt16LE(at + 6) & 0x0f;
  const method = COMPRESSION[compression] ?? `type ${compression}`;
  if (method !== 'MSZIP' && method !== 'none') {
    throw bad(`it is ${method}-compressed (only MSZIP and stored cabinets are supported)`);
  }
  const size = bytes.readUInt32LE(firstFile);
  const offsetInFolder = bytes.readUInt32LE(firstFile + 4);
  const nameEnd = bytes.indexOf(0, firstFile + 16);
  const name = bytes.toString('latin1', firstFile + 16, nameEnd === -1 ? bytes.length : nameEnd);
  if (offsetInFolder + size > maxBytes) {
    throw bad(`the file claims ${size} bytes, more than the ${maxBytes}-byte limit`);
  }
  if (blockCount * MSZIP_BLOCK < offsetInFolder + size) {
    throw bad(`${blockCount} data blocks cannot hold ${size} bytes`);
  }
  const out = Buffer.alloc(offsetInFolder + size);
  let produced = 0;
  let previous: Buffer | undefined;
  let p = dataStart;
  for (let block = 0; block < blockCount && produced < out.length; block++) {
    if (p + 8 + dataReserve > bytes.length) throw bad(`data block ${block} is cut short`);
    const packed = bytes.readUInt16LE(p + 4);
    const unpacked = bytes.readUInt16LE(p + 6);
    const start = p + 8 + dataReserve;
    if (start + packed > bytes.length) throw bad(`data block ${block} is cut short`);
    if (unpacked > MSZIP_BLOCK || produced + unpacked > out.length + MSZIP_BLOCK) {
      throw bad(`data block ${block} claims ${unpacked} bytes`);
    }
    const body = bytes.subarray(start, start + packed);
    let plain: Buffer;
    if (method === 'none') {
      plain = body;
    } else {
      if (body[0] !== 0x43 || body[1] !== 0x4b)
        throw bad(`data block ${block} has no CK signature`);
      try {
        plain = inflateRawSync(body.subarray(2), {
          // A block may end without deflate's final-block bit: take what inflated so far.
          finishFlush: constants.Z_SYNC_FLUSH,
          maxOutputLength: MSZIP_BLOCK,
          ...(previous === undefined ? {} : { dictionary: previous }),
        });
      } catch (error) {
        throw bad(
          `data block ${block} does not inflate (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    }
    if (plain.length !== unpacked) {
      throw bad(`data block ${block} inflated to ${plain.length} bytes, not ${unpacked}`);
    }
    plain.copy(out, produced, 0, Math.min(plain.length, out.length - produced));
    produced += plain.length;
    previous = plain;
    p = start + packed;
  }
  if (produced < out.length) throw bad(`the data blocks hold ${produced} of ${out.length} bytes`);
  return { name, data: out.subarray(offsetInFolder) };
}
