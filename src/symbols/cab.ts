// Cabinet files as symbol servers serve compressed symbols (`NAME.pd_`): one folder, one file,
// MSZIP-compressed. Format: [MS-CAB] (https://learn.microsoft.com/openspecs/exchange_server_protocols/ms-cab)
// and MSZIP: [MS-MCI] (https://learn.microsoft.com/openspecs/exchange_server_protocols/ms-mci):
// each CFDATA block is `CK` + a deflate stream of at most 32 KiB output, whose back-references
// may reach into the previous block's output (so it is inflated with that block as dictionary).
// LZX and Quantum folders are refused with a clear error (no decoder here). Expanded block by
// block into the caller's sink, never whole in memory.
import { BadSymbolsError } from '../errors.js';
import { BufferSource, type ByteSource } from './byte-source.js';

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

/** The first file of a single-folder cabinet in memory, decompressed; at most maxBytes of output. */
export async function extractCab(bytes: Buffer, label: string, maxBytes: number): Promise<CabFile> {
  const parts: Buffer[] = [];
  const { name } = await expandCab(new BufferSource(bytes), label, {
    maxBytes,
    write: (chunk) => {
      parts.push(Buffer.from(chunk));
      return Promise.resolve();
    },
  });
  return { name, data: Buffer.concat(parts) };
}

/**
 * The first file of a single-folder cabinet, decompressed block by block into `write` (a file on
 * disk): memory stays at one 32 KiB block and its dictionary whatever the cabinet expands to. The
 * file's declared size is checked against maxBytes before anything is expanded (a cabinet bomb
 * is refused on its header), and the output is cut at that size whatever the blocks say.
 */
export async function expandCab(
  source: ByteSource,
  label: string,
  options: { maxBytes: number; write: (chunk: Buffer) => Promise<void> },
): Promise<{ name: string; size: number }> {
  const bad = (why: string) => new BadSymbolsError(label, `${label}: not a usable cabinet: ${why}`);
  // Loaded here, not at the top: only a download from a symbol server is ever a cabinet, and
  // zlib's module costs every `inspect` and `analyze` start-up ~3 ms of CPU otherwise.
  const { constants, inflateRawSync } = await import('node:zlib');
  const head = await source.read(0, Math.min(source.size, 4096));
  if (head.length < HEADER_SIZE || !isCab(head)) throw bad('no MSCF header');
  const folders = head.readUInt16LE(26);
  const files = head.readUInt16LE(28);
  const flags = head.readUInt16LE(30);
  const firstFile = head.readUInt32LE(16);
  if (folders === 0 || files === 0) throw bad(`${folders} folders, ${files} files`);
  if (flags & (FLAG_PREV | FLAG_NEXT)) throw bad('part of a multi-cabinet set');
  let at = HEADER_SIZE;
  let dataReserve = 0;
  if (flags & FLAG_RESERVE) {
    if (at + 4 > head.length) throw bad('cut short');
    const headerReserve = head.readUInt16LE(at);
    dataReserve = head[at + 3] ?? 0;
    at += 4 + headerReserve;
  }
  if (at + 8 > source.size || firstFile + 16 > source.size) throw bad('cut short');
  const folder = await source.read(at, 8);
  const dataStart = folder.readUInt32LE(0);
  const blockCount = folder.readUInt16LE(4);
  const compression = folder.readUInt16LE(6) & 0x0f;
  const method = COMPRESSION[compression] ?? `type ${compression}`;
  if (method !== 'MSZIP' && method !== 'none') {
    throw bad(`it is ${method}-compressed (only MSZIP and stored cabinets are supported)`);
  }
  // CFFILE: size, offset in the folder, folder index, date, time, attributes, then the name.
  const entry = await source.read(firstFile, 16 + 256);
  if (entry.length < 16) throw bad('cut short');
  const size = entry.readUInt32LE(0);
  const offsetInFolder = entry.readUInt32LE(4);
  const nameEnd = entry.indexOf(0, 16);
  const name = entry.toString('latin1', 16, nameEnd === -1 ? entry.length : nameEnd);
  if (offsetInFolder + size > options.maxBytes) {
    throw bad(`the file claims ${size} bytes, more than the ${options.maxBytes}-byte limit`);
  }
  if (blockCount * MSZIP_BLOCK < offsetInFolder + size) {
    throw bad(`${blockCount} data blocks cannot hold ${size} bytes`);
  }
  const end = offsetInFolder + size;
  let produced = 0;
  let previous: Buffer | undefined;
  let p = dataStart;
  for (let block = 0; block < blockCount && produced < end; block++) {
    const blockHead = await source.read(p, 8);
    if (blockHead.length < 8 || p + 8 + dataReserve > source.size) {
      throw bad(`data block ${block} is cut short`);
    }
    const packed = blockHead.readUInt16LE(4);
    const unpacked = blockHead.readUInt16LE(6);
    const start = p + 8 + dataReserve;
    if (start + packed > source.size) throw bad(`data block ${block} is cut short`);
    if (unpacked > MSZIP_BLOCK) throw bad(`data block ${block} claims ${unpacked} bytes`);
    const body = await source.read(start, packed);
    if (body.length < packed) throw bad(`data block ${block} is cut short`);
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
    // Only the file's own bytes go out: skip what precedes it in the folder, stop at its end.
    const from = Math.max(0, offsetInFolder - produced);
    const to = Math.min(plain.length, end - produced);
    if (to > from) await options.write(plain.subarray(from, to));
    produced += plain.length;
    previous = plain;
    p = start + packed;
  }
  if (produced < end) throw bad(`the data blocks hold ${produced} of ${end} bytes`);
  return { name, size };
}
