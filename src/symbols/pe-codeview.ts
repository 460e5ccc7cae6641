// The CodeView record of a PE image (its debug directory), for modules whose dump has none
// (Wine's minidump writer leaves CvRecord empty): it names the PDB and its GUID+age, which is
// how the right PDB is found and checked. PE layout:
// https://learn.microsoft.com/windows/win32/debug/pe-format (optional header data directory 6).
import { codeIdOf } from '../common/module-identity.js';
import { BadSymbolsError } from '../errors.js';
import { parseCodeView, type CodeViewInfo } from '../minidump/streams/codeview.js';
import type { ByteSource } from './byte-source.js';

const IMAGE_DEBUG_TYPE_CODEVIEW = 2;
const MAX_HEADERS = 64 * 1024;

export interface ImageIdentity {
  timeDateStamp: number;
  sizeOfImage: number;
  /** `%08X(timestamp)%x(size)`: the store key for the image itself. */
  codeId: string;
  codeView?: CodeViewInfo;
}

export async function readImageIdentity(source: ByteSource, label: string): Promise<ImageIdentity> {
  const bad = (why: string) =>
    new BadSymbolsError(label, `${label}: not a usable PE image: ${why}`);
  const head = await source.read(0, Math.min(source.size, MAX_HEADERS));
  if (head.length < 0x40 || head.toString('latin1', 0, 2) !== 'MZ') throw bad('no MZ header');
  const pe = head.readUInt32LE(0x3c);
  if (pe + 24 > head.length || head.readUInt32LE(pe) !== 0x4550) throw bad('no PE signature');
  const sections = head.readUInt16LE(pe + 6);
  const timeDateStamp = head.readUInt32LE(pe + 8);
  const optSize = head.readUInt16LE(pe + 20);
  const opt = pe + 24;
  if (opt + optSize + sections * 40 > head.length) throw bad('headers run past 64 KiB');
  const magic = head.readUInt16LE(opt);
  const dirs = magic === 0x20b ? opt + 112 : magic === 0x10b ? opt + 96 : -1;
  if (dirs < 0) throw bad(`optional header magic 0x${magic.toString(16)}`);
  const sizeOfImage = head.readUInt32LE(opt + 56);
  const identity: ImageIdentity = {
    timeDateStamp,
    sizeOfImage,
    codeId: codeIdOf(timeDateStamp, sizeOfImage),
  };
  if (dirs + 7 * 8 > opt + optSize) return identity;
  const debugRva = head.readUInt32LE(dirs + 6 * 8);
  const debugSize = head.readUInt32LE(dirs + 6 * 8 + 4);
  if (debugRva === 0 || debugSize === 0 || debugSize > 28 * 64) return identity;
  const table = opt + optSize;
  let fileOffset: number | undefined;
  for (let i = 0; i < sections; i++) {
    const s = table + i * 40;
    const va = head.readUInt32LE(s + 12);
    const raw = head.readUInt32LE(s + 16);
    if (debugRva >= va && debugRva + debugSize <= va + Math.max(raw, head.readUInt32LE(s + 8))) {
      fileOffset = head.readUInt32LE(s + 20) + (debugRva - va);
    }
  }
  if (fileOffset === undefined) return identity;
  const entries = await source.read(fileOffset, debugSize);
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
