// The CodeView record of a PE image (its debug directory), for modules whose dump has none
// (Wine's minidump writer leaves CvRecord empty): it names the PDB and its GUID+age, which is
// how the right PDB is found and checked. PE layout:
// https://learn.microsoft.com/windows/win32/debug/pe-format (optional header data directory 6),
// through the one PE header reader (src/common/pe-headers.ts).
import { fileOffsetOf, parsePeHeaders } from '../common/pe-headers.js';
import { BadSymbolsError } from '../errors.js';
import { parseCodeView, type CodeViewInfo } from '../minidump/streams/codeview.js';
import type { ByteSource } from './byte-source.js';

const IMAGE_DEBUG_TYPE_CODEVIEW = 2;

export interface ImageIdentity {
  timeDateStamp: number;
  sizeOfImage: number;
  /** `%08X(timestamp)%x(size)`: the store key for the image itself. */
  codeId: string;
  codeView?: CodeViewInfo;
}

export async function readImageIdentity(source: ByteSource, label: string): Promise<ImageIdentity> {
  const headers = await parsePeHeaders({
    read: (offset, length) =>
      source.read(offset, Math.max(0, Math.min(length, source.size - offset))),
  });
  if (typeof headers === 'string') {
    throw new BadSymbolsError(label, `${label}: not a usable PE image: ${headers}`);
  }
  const identity: ImageIdentity = {
    timeDateStamp: headers.timestamp,
    sizeOfImage: headers.sizeOfImage,
    codeId: headers.codeId,
  };
  const debug = headers.debugDir;
  if (debug.rva === 0 || debug.size === 0 || debug.size > 28 * 64) return identity;
  const fileOffset = fileOffsetOf(headers, debug.rva, debug.size);
  if (fileOffset === undefined) return identity;
  const entries = await source.read(fileOffset, debug.size);
  for (let at = 0; at + 28 <= entries.length; at += 28) {
    if (entries.readUInt32LE(at + 12) !== IMAGE_DEBUG_TYPE_CODEVIEW) continue;
    const size = entries.readUInt32LE(at + 16);
    const pointer = entries.readUInt32LE(at + 24);
    if (size < 24 || size > 4096 || pointer + size > source.size) continue;
    identity.codeView = parseCodeView(await source.read(pointer, size));
    break;
  }
  return identity;
}
