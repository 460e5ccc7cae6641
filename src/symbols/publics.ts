// Public symbols (S_PUB32) through the publics stream's address map: an array of offsets into
// the symbol record stream, sorted by section:offset, so a lookup is a binary search that reads
// one small record per probe instead of the whole (often tens of MB) symbol record stream.
// Layout: https://llvm.org/docs/PDB/PublicStream.html, https://llvm.org/docs/PDB/GlobalStream.html
import { BadSymbolsError } from '../errors.js';
import type { MsfFile } from './msf.js';
import type { SectionToRva } from './module-stream.js';

const S_PUB32 = 0x110e;
const HEADER_SIZE = 28;

export interface PublicSymbol {
  rva: number;
  name: string;
}

export class PublicsIndex {
  readonly #msf: MsfFile;
  readonly #symRecords: number;
  readonly #offsets: Uint32Array;
  readonly #toRva: SectionToRva;
  /** Probed entries, by address-map index (the top of the search tree is shared by all lookups). */
  readonly #probed = new Map<number, Promise<PublicSymbol | undefined>>();

  private constructor(msf: MsfFile, symRecords: number, offsets: Uint32Array, toRva: SectionToRva) {
    this.#msf = msf;
    this.#symRecords = symRecords;
    this.#offsets = offsets;
    this.#toRva = toRva;
  }

  static async open(
    msf: MsfFile,
    publicStream: number,
    symRecordStream: number,
    toRva: SectionToRva,
  ): Promise<PublicsIndex> {
    const size = msf.streamSize(publicStream);
    if (size < HEADER_SIZE)
      return new PublicsIndex(msf, symRecordStream, new Uint32Array(0), toRva);
    const h = await msf.readStream(publicStream, 0, HEADER_SIZE, 'publics header');
    const hashBytes = h.readUInt32LE(0);
    const mapBytes = h.readUInt32LE(4);
    if (HEADER_SIZE + hashBytes + mapBytes > size || mapBytes % 4 !== 0) {
      throw new BadSymbolsError(
        msf.name,
        `${msf.name}: publics stream claims a ${hashBytes}-byte hash and a ${mapBytes}-byte address map in ${size} bytes`,
      );
    }
    const map = await msf.readStream(
      publicStream,
      HEADER_SIZE + hashBytes,
      mapBytes,
      'address map',
    );
    const offsets = new Uint32Array(mapBytes / 4);
    for (let i = 0; i < offsets.length; i++) offsets[i] = map.readUInt32LE(i * 4);
    return new PublicsIndex(msf, symRecordStream, offsets, toRva);
  }

  get count(): number {
    return this.#offsets.length;
  }

  /** The nearest public symbol at or below rva. */
  async nearest(rva: number): Promise<PublicSymbol | undefined> {
    let lo = 0;
    let hi = this.#offsets.length - 1;
    let best: PublicSymbol | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const entry = await this.#entry(mid);
      if (entry === undefined) return best; // a corrupt record: stop rather than guess
      if (entry.rva <= rva) {
        best = entry;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return best;
  }

  #entry(index: number): Promise<PublicSymbol | undefined> {
    let hit = this.#probed.get(index);
    if (!hit) {
      hit = this.#read(this.#offsets[index] ?? 0);
      this.#probed.set(index, hit);
    }
    return hit;
  }

  async #read(offset: number): Promise<PublicSymbol | undefined> {
    const streamSize = this.#msf.streamSize(this.#symRecords);
    if (offset + 4 > streamSize) return undefined;
    const head = await this.#msf.readStream(this.#symRecords, offset, 4, 'public symbol');
    const length = head.readUInt16LE(0);
    if (head.readUInt16LE(2) !== S_PUB32 || length < 12 || offset + 2 + length > streamSize) {
      return undefined;
    }
    const record = await this.#msf.readStream(
      this.#symRecords,
      offset,
      2 + length,
      'public symbol',
    );
    const rva = this.#toRva(record.readUInt16LE(12), record.readUInt32LE(8));
    if (rva === undefined) return undefined;
    const end = record.indexOf(0, 14);
    return { rva, name: record.toString('utf8', 14, end === -1 ? record.length : end) };
  }
}
