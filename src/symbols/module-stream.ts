// One module's stream: CodeView symbol records (the procedures, with their address ranges) and
// C13 line tables (address → file:line). Record kinds and layouts:
// https://llvm.org/docs/PDB/CodeViewSymbols.html, https://llvm.org/docs/PDB/ModiStream.html and
// https://llvm.org/docs/PDB/CodeViewTypes.html; C13 subsections as LLVM's CodeView.h defines them.
import { S_INLINESITE, S_INLINESITE2 } from './inline-sites.js';
import type { StringTable } from './pdb-info.js';

const S_LPROC32 = 0x110f;
const S_GPROC32 = 0x1110;
const S_LPROC32_ID = 0x1146;
const S_GPROC32_ID = 0x1147;
const PROC_KINDS = new Set([S_LPROC32, S_GPROC32, S_LPROC32_ID, S_GPROC32_ID]);
const DEBUG_S_LINES = 0xf2;
const DEBUG_S_FILECHKSMS = 0xf4;
const DEBUG_S_INLINEELINES = 0xf6;
/** The subsection kinds CodeView defines (DEBUG_S_SYMBOLS … DEBUG_S_MERGED_ASSEMBLYINPUT). */
const KNOWN_SUBSECTION = (kind: number) => kind >= 0xf1 && kind <= 0xfd;
/** DEBUG_S_IGNORE: a subsection to skip (LLVM CodeView.h). */
const DEBUG_S_IGNORE = 0x80000000;
/** Flag in a DEBUG_S_LINES header: each line entry has a column entry after the lines. */
const CV_LINES_HAVE_COLUMNS = 1;
/** Compilers mark compiler-generated code with these line numbers ("hidden" lines). */
const HIDDEN_LINES = new Set([0xfeefee, 0xf00f00]);

export interface ProcRange {
  rva: number;
  size: number;
  name: string;
  /**
   * Where its S_INLINESITE records are in the module stream (from the first to the procedure's
   * S_END), when it has any: read again only when a frame on a stack lies in the procedure.
   */
  inlineRecords?: { from: number; to: number };
}

/** Line starts sorted by RVA; a line runs to the next entry (or its block's end). */
export interface LineTable {
  rvas: Uint32Array;
  ends: Uint32Array;
  lines: Uint32Array;
  files: (string | undefined)[];
}

export interface ModuleSymbols {
  procs: ProcRange[];
  lines: LineTable;
  /** Things skipped as malformed (counted, not fatal: the rest of the module is still good). */
  skipped: number;
  /**
   * Why the module's symbols were read only in part (a record of length 0 or past the stream's
   * end, a stream that is not the module's): procs past that point are unknown, so an address
   * no proc covers has no trustworthy name (the nearest public may be a neighbour's).
   */
  incomplete?: string;
  /** Why some of its line tables were dropped (a corrupt C13 block): lines may be missing. */
  linesIncomplete?: string;
  /** Its DEBUG_S_INLINEELINES subsections, kept raw (parsed when an inline frame needs them). */
  inlineeLines?: Buffer[];
  /** File names by checksum offset, kept when there are inlinee lines to name files of. */
  fileNames?: ReadonlyMap<number, string | undefined>;
}

export type SectionToRva = (section: number, offset: number) => number | undefined;

/** Procedures in a module's symbol substream (the bytes after the 4-byte CV signature). */
export function parseProcs(
  symbols: Buffer,
  toRva: SectionToRva,
): { procs: ProcRange[]; skipped: number; incomplete?: string } {
  const procs: ProcRange[] = [];
  let skipped = 0;
  let incomplete: string | undefined;
  if (symbols.length > 0 && symbols.length < 4) {
    // Not even the CV signature: the DBI's byte count for this module is wrong.
    return {
      procs,
      skipped: 1,
      incomplete: `${symbols.length} symbol bytes, short of a signature`,
    };
  }
  let at = 4;
  // The procedure whose records are being read, and the offset of its S_END.
  let open: { proc: ProcRange; end: number } | undefined;
  while (at + 4 <= symbols.length) {
    const length = symbols.readUInt16LE(at);
    const kind = symbols.readUInt16LE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > symbols.length) {
      // Nothing after this record can be found (records chain by length): the rest is lost.
      skipped++;
      incomplete =
        length < 2
          ? `a symbol record of length ${length} at offset ${at}`
          : `a symbol record at offset ${at} claims ${length} bytes, past the end (${symbols.length})`;
      break;
    }
    if (PROC_KINDS.has(kind) && length >= 38) {
      const size = symbols.readUInt32LE(at + 16);
      const offset = symbols.readUInt32LE(at + 32);
      const section = symbols.readUInt16LE(at + 36);
      const nameEnd = symbols.indexOf(0, at + 39);
      const rva = toRva(section, offset);
      if (rva === undefined || nameEnd === -1 || nameEnd > end) {
        skipped++;
        open = undefined;
      } else {
        const proc: ProcRange = { rva, size, name: symbols.toString('utf8', at + 39, nameEnd) };
        procs.push(proc);
        open = { proc, end: symbols.readUInt32LE(at + 8) };
      }
    } else if ((kind === S_INLINESITE || kind === S_INLINESITE2) && open !== undefined) {
      // Only the span is noted here: the sites are parsed for procedures on a stack.
      if (at < open.end && open.end + 4 <= symbols.length) {
        open.proc.inlineRecords ??= { from: at, to: open.end + 4 };
      } else skipped++;
    }
    at = end;
  }
  if (incomplete === undefined && at < symbols.length) {
    // Records are whole and 4-aligned: bytes left over mean the byte count cut a record.
    skipped++;
    incomplete = `${symbols.length - at} bytes after the last whole symbol record (offset ${at})`;
  }
  procs.sort((a, b) => a.rva - b.rva);
  return { procs, skipped, ...(incomplete === undefined ? {} : { incomplete }) };
}

/** Line tables from a module's C13 substream; file names through the checksums and /names. */
export function parseC13Lines(
  c13: Buffer,
  names: StringTable,
  toRva: SectionToRva,
): {
  lines: LineTable;
  skipped: number;
  incomplete?: string;
  inlineeLines?: Buffer[];
  fileNames?: ReadonlyMap<number, string | undefined>;
} {
  let incomplete: string | undefined;
  const inlineeLines: Buffer[] = [];
  const checksumNames = new Map<number, string | undefined>();
  const blocks: { at: number; end: number }[] = [];
  let skipped = 0;
  let at = 0;
  while (at + 8 <= c13.length) {
    const kind = c13.readUInt32LE(at);
    const length = c13.readUInt32LE(at + 4);
    const start = at + 8;
    const end = start + length;
    if (end > c13.length) {
      skipped++;
      incomplete = `a line subsection at offset ${at} claims ${length} bytes, past the end (${c13.length})`;
      break;
    }
    if (!KNOWN_SUBSECTION(kind) && kind !== DEBUG_S_IGNORE) {
      // Not a kind any writer emits: the subsection headers are not what they seem, and what
      // they frame (lines of some function) is lost.
      skipped++;
      incomplete ??= `a line subsection of unknown kind 0x${kind.toString(16)} at offset ${at}`;
    } else if (kind === DEBUG_S_FILECHKSMS) {
      let p = start;
      while (p + 6 <= end) {
        const nameOffset = c13.readUInt32LE(p);
        const checksumSize = c13[p + 4] ?? 0;
        checksumNames.set(p - start, names.get(nameOffset));
        p = (p + 6 + checksumSize + 3) & ~3;
      }
    } else if (kind === DEBUG_S_LINES) {
      blocks.push({ at: start, end });
    } else if (kind === DEBUG_S_INLINEELINES) {
      // A copy: the module's whole C13 buffer is not kept for it.
      inlineeLines.push(Buffer.from(c13.subarray(start, end)));
    }
    at = (end + 3) & ~3;
  }
  if (incomplete === undefined && at < c13.length) {
    skipped++;
    incomplete = `${c13.length - at} bytes after the last whole line subsection (offset ${at})`;
  }
  const rvas: number[] = [];
  const ends: number[] = [];
  const lines: number[] = [];
  const files: (string | undefined)[] = [];
  for (const { at: s, end } of blocks) {
    if (s + 12 > end) {
      skipped++;
      incomplete ??= `a line block of ${end - s} bytes at offset ${s}`;
      continue;
    }
    const base = toRva(c13.readUInt16LE(s + 4), c13.readUInt32LE(s));
    const entrySize = (c13.readUInt16LE(s + 6) & CV_LINES_HAVE_COLUMNS) !== 0 ? 12 : 8;
    const codeSize = c13.readUInt32LE(s + 8);
    if (base === undefined) {
      skipped++;
      incomplete ??= `a line block in section ${c13.readUInt16LE(s + 4)}, which the image does not have`;
      continue;
    }
    let p = s + 12;
    while (p + 12 <= end) {
      const fileId = c13.readUInt32LE(p);
      const count = c13.readUInt32LE(p + 4);
      const blockSize = c13.readUInt32LE(p + 8);
      const entries = p + 12;
      if (blockSize < 12 || p + blockSize > end || entries + count * 8 > end) {
        skipped++;
        incomplete ??= `a line block at offset ${p} claims ${count} lines in ${blockSize} bytes, past its subsection`;
        break;
      }
      if (blockSize !== 12 + count * entrySize) {
        // The count and the size disagree: which one lies is unknown, so neither is used (a
        // short count would stretch a line over its neighbours' code).
        skipped++;
        incomplete ??= `a line block at offset ${p} claims ${count} lines in ${blockSize} bytes`;
        p += blockSize;
        continue;
      }
      if (!checksumNames.has(fileId)) {
        skipped++;
        incomplete ??= `a line block at offset ${p} names file ${fileId}, which the checksums do not list`;
        p += blockSize;
        continue;
      }
      const file = checksumNames.get(fileId);
      for (let i = 0; i < count; i++) {
        const offset = c13.readUInt32LE(entries + i * 8);
        const line = c13.readUInt32LE(entries + i * 8 + 4) & 0xffffff;
        const next = i + 1 < count ? c13.readUInt32LE(entries + (i + 1) * 8) : codeSize;
        if (HIDDEN_LINES.has(line) || line === 0) continue;
        rvas.push(base + offset);
        ends.push(base + Math.max(offset + 1, next));
        lines.push(line);
        files.push(file);
      }
      // Column entries (flag 1 in the header) follow the line entries, inside blockSize.
      p += blockSize;
    }
    if (p < end && incomplete === undefined) {
      skipped++;
      incomplete = `${end - p} bytes after the last whole line block (offset ${p})`;
    }
  }
  const order = rvas.map((_, i) => i).sort((a, b) => (rvas[a] ?? 0) - (rvas[b] ?? 0));
  return {
    lines: {
      rvas: Uint32Array.from(order, (i) => rvas[i] ?? 0),
      ends: Uint32Array.from(order, (i) => ends[i] ?? 0),
      lines: Uint32Array.from(order, (i) => lines[i] ?? 0),
      files: order.map((i) => files[i]),
    },
    skipped,
    ...(incomplete === undefined ? {} : { incomplete }),
    ...(inlineeLines.length === 0 ? {} : { inlineeLines, fileNames: checksumNames }),
  };
}

/** Index of the last element of a sorted array that is ≤ value, or -1. */
export function floorIndex(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? 0) <= value) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

/** The procedure containing rva, if any. */
export function procAt(procs: readonly ProcRange[], rva: number): ProcRange | undefined {
  let lo = 0;
  let hi = procs.length - 1;
  let best: ProcRange | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const p = procs[mid];
    if (p === undefined) break;
    if (p.rva <= rva) {
      best = p;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best !== undefined && rva < best.rva + Math.max(best.size, 1) ? best : undefined;
}

/** file:line for rva from a line table. */
export function lineAt(table: LineTable, rva: number): { file?: string; line: number } | undefined {
  const i = floorIndex(table.rvas, rva);
  if (i < 0 || rva >= (table.ends[i] ?? 0)) return undefined;
  const file = table.files[i];
  return { line: table.lines[i] ?? 0, ...(file === undefined ? {} : { file }) };
}
