// The PDB info stream (stream 1: version, signature, age, GUID, then the named-stream map that
// says where `/names` lives) and the `/names` string table the line tables point into.
// Layouts: https://llvm.org/docs/PDB/PdbStream.html, https://llvm.org/docs/PDB/StringTable.html
import { BadSymbolsError } from '../errors.js';
import type { MsfFile } from './msf.js';

export const PDB_INFO_STREAM = 1;
const NAMES_SIGNATURE = 0xeffeeffe;

export interface PdbInfo {
  version: number;
  age: number;
  /** `8-4-4-4-12` lower-case, as RSDS CodeView records are printed. */
  guid: string;
  /** GUID as a symbol server keys it (32 upper-case hex digits, no age). */
  guidKey: string;
  /** Named streams (`/names`, `/LinkInfo`, `/src/headerblock`…) → stream index. */
  namedStreams: Map<string, number>;
}

export async function readPdbInfo(msf: MsfFile): Promise<PdbInfo> {
  const size = msf.streamSize(PDB_INFO_STREAM);
  const bad = (why: string) =>
    new BadSymbolsError(msf.name, `${msf.name}: PDB info stream: ${why}`);
  if (size < 28) throw bad(`only ${size} bytes`);
  // The stream is small (a few hundred bytes): read it whole.
  const b = await msf.readStream(PDB_INFO_STREAM, 0, Math.min(size, 1 << 20), 'PDB info stream');
  const guidBytes = b.subarray(12, 28);
  const guidKey = guidString(guidBytes);
  const guid =
    `${guidKey.slice(0, 8)}-${guidKey.slice(8, 12)}-${guidKey.slice(12, 16)}-${guidKey.slice(16, 20)}-${guidKey.slice(20)}`.toLowerCase();
  return {
    version: b.readUInt32LE(0),
    age: b.readUInt32LE(8),
    guid,
    guidKey,
    namedStreams: readNamedStreams(b, 28, bad),
  };
}

/** GUID bytes (Data1 u32, Data2 u16, Data3 u16 little-endian, Data4 8 bytes) as 32 hex digits. */
export function guidString(g: Buffer): string {
  const hex = (n: number, w: number) => n.toString(16).toUpperCase().padStart(w, '0');
  return (
    hex(g.readUInt32LE(0), 8) +
    hex(g.readUInt16LE(4), 4) +
    hex(g.readUInt16LE(6), 4) +
    g.subarray(8, 16).toString('hex').toUpperCase()
  );
}

/**
 * The serialized hash table after the header: string buffer, size, capacity, present and
 * deleted bit vectors, then (key = offset in the string buffer, value = stream) per present bit.
 */
function readNamedStreams(
  b: Buffer,
  start: number,
  bad: (why: string) => BadSymbolsError,
): Map<string, number> {
  const map = new Map<string, number>();
  let at = start;
  const need = (n: number) => {
    if (at + n > b.length) throw bad('the named-stream map is cut short');
  };
  need(4);
  const stringBytes = b.readUInt32LE(at);
  at += 4;
  need(stringBytes);
  const strings = b.subarray(at, at + stringBytes);
  at += stringBytes;
  need(8);
  const count = b.readUInt32LE(at);
  const capacity = b.readUInt32LE(at + 4);
  at += 8;
  if (count > capacity || capacity > 1 << 16) throw bad(`${count} of ${capacity} named streams`);
  need(4);
  const presentWords = b.readUInt32LE(at);
  at += 4;
  need(presentWords * 4);
  const present: number[] = [];
  for (let w = 0; w < presentWords; w++) {
    const word = b.readUInt32LE(at + w * 4);
    for (let bit = 0; bit < 32; bit++) if ((word >>> bit) & 1) present.push(w * 32 + bit);
  }
  at += presentWords * 4;
  need(4);
  const deletedWords = b.readUInt32LE(at);
  at += 4 + deletedWords * 4;
  for (let i = 0; i < present.length && i < count; i++) {
    need(8);
    const key = b.readUInt32LE(at);
    const value = b.readUInt32LE(at + 4);
    at += 8;
    if (key >= strings.length) continue;
    const end = strings.indexOf(0, key);
    map.set(strings.toString('utf8', key, end === -1 ? strings.length : end), value);
  }
  return map;
}

/** The `/names` stream: offsets from the line tables' file checksums resolve to file names. */
export class StringTable {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  static async read(msf: MsfFile, stream: number | undefined): Promise<StringTable> {
    if (stream === undefined || msf.streamSize(stream) < 12)
      return new StringTable(Buffer.alloc(0));
    const head = await msf.readStream(stream, 0, 12, '/names header');
    if (head.readUInt32LE(0) !== NAMES_SIGNATURE) {
      throw new BadSymbolsError(msf.name, `${msf.name}: /names has a bad signature`);
    }
    const byteSize = head.readUInt32LE(8);
    const body = await msf.readStream(stream, 12, byteSize, '/names strings');
    return new StringTable(body);
  }

  get(offset: number): string | undefined {
    if (offset >= this.#bytes.length) return undefined;
    const end = this.#bytes.indexOf(0, offset);
    return this.#bytes.toString('utf8', offset, end === -1 ? this.#bytes.length : end);
  }
}
