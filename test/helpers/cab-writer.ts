// A minimal cabinet writer for tests (one folder, one file), from the documented format [MS-CAB]
// (https://learn.microsoft.com/openspecs/exchange_server_protocols/ms-cab) with MSZIP blocks
// [MS-MCI]: each CFDATA block is `CK` + raw deflate of at most 32 KiB, compressed with the
// previous block's bytes as the deflate dictionary (what makes MSZIP blocks depend on each other).
// Debian has no cabinet writer (lcab stores only), so tests make their own `.pd_` files here.
import { deflateRawSync } from 'node:zlib';

export interface CabOptions {
  /** Uncompressed bytes per block (≤ 32768). */
  blockSize?: number;
  /** Folder compression type written in the header: 1 MSZIP (default), 3 LZX (header only). */
  compressionType?: 1 | 3;
}

export function writeCab(name: string, data: Buffer, options: CabOptions = {}): Buffer {
  const blockSize = options.blockSize ?? 32768;
  const blocks: Buffer[] = [];
  let previous: Buffer | undefined;
  for (let at = 0; at < data.length || (at === 0 && data.length === 0); at += blockSize) {
    const plain = data.subarray(at, Math.min(data.length, at + blockSize));
    const packed = deflateRawSync(plain, previous === undefined ? {} : { dictionary: previous });
    const head = Buffer.alloc(8);
    head.writeUInt32LE(0, 0); // checksum 0: "not computed", allowed by the format
    head.writeUInt16LE(packed.length + 2, 4);
    head.writeUInt16LE(plain.length, 6);
    blocks.push(Buffer.concat([head, Buffer.from('CK', 'latin1'), packed]));
    previous = plain;
    if (data.length === 0) break;
  }
  const fileEntry = Buffer.concat([Buffer.alloc(16), Buffer.from(`${name}\0`, 'latin1')]);
  fileEntry.writeUInt32LE(data.length, 0); // cbFile
  fileEntry.writeUInt32LE(0, 4); // uoffFolderStart
  fileEntry.writeUInt16LE(0, 8); // iFolder
  fileEntry.writeUInt16LE(0x20, 14); // attribs: archive
  const headerSize = 36;
  const folderSize = 8;
  const dataStart = headerSize + folderSize + fileEntry.length;
  const body = Buffer.concat(blocks);
  const header = Buffer.alloc(headerSize + folderSize);
  header.write('MSCF', 0, 'latin1');
  header.writeUInt32LE(dataStart + body.length, 8); // cbCabinet
  header.writeUInt32LE(headerSize + folderSize, 16); // coffFiles
  header[24] = 3; // versionMinor
  header[25] = 1; // versionMajor
  header.writeUInt16LE(1, 26); // cFolders
  header.writeUInt16LE(1, 28); // cFiles
  header.writeUInt32LE(dataStart, headerSize); // CFFOLDER.coffCabStart
  header.writeUInt16LE(blocks.length, headerSize + 4); // cCFData
  header.writeUInt16LE(options.compressionType ?? 1, headerSize + 6); // typeCompress
  return Buffer.concat([header, fileEntry, body]);
}

/**
 * A cabinet bomb: `expandedBytes` of zeros in a few hundred KB. Each 32 KiB block of zeros
 * deflates to the same few bytes (compressed without a dictionary, which MSZIP allows), so the
 * cabinet is built without ever holding the expanded bytes.
 */
export function writeCabBomb(name: string, expandedBytes: number): Buffer {
  const full = 32768;
  const count = Math.ceil(expandedBytes / full);
  if (count > 0xffff) throw new RangeError(`${expandedBytes} bytes need more than 65535 blocks`);
  const block = (size: number) => {
    const packed = deflateRawSync(Buffer.alloc(size));
    const head = Buffer.alloc(8);
    head.writeUInt16LE(packed.length + 2, 4);
    head.writeUInt16LE(size, 6);
    return Buffer.concat([head, Buffer.from('CK', 'latin1'), packed]);
  };
  const whole = block(full);
  const last = expandedBytes - (count - 1) * full;
  const blocks = Array.from({ length: count }, (_, i) =>
    i === count - 1 && last !== full ? block(last) : whole,
  );
  const fileEntry = Buffer.concat([Buffer.alloc(16), Buffer.from(`${name}\0`, 'latin1')]);
  fileEntry.writeUInt32LE(expandedBytes, 0);
  fileEntry.writeUInt16LE(0x20, 14);
  const dataStart = 36 + 8 + fileEntry.length;
  const body = Buffer.concat(blocks);
  const header = Buffer.alloc(44);
  header.write('MSCF', 0, 'latin1');
  header.writeUInt32LE(dataStart + body.length, 8);
  header.writeUInt32LE(44, 16);
  header[24] = 3;
  header[25] = 1;
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(1, 28);
  header.writeUInt32LE(dataStart, 36);
  header.writeUInt16LE(count, 40);
  header.writeUInt16LE(1, 42);
  return Buffer.concat([header, fileEntry, body]);
}
