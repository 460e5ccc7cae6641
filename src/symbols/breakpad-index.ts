// One pass over a Breakpad .sym file, line by line through positioned reads of a few MB at a
// time, keeping only where each record is: FUNC (address, size, and the byte range of its line
// and INLINE records), PUBLIC, FILE, INLINE_ORIGIN, STACK CFI INIT (with the range of its deltas)
// and STACK WIN. Memory is a few numbers per FUNC, PUBLIC and STACK record, whatever the file
// holds in line records and rule text (most of a big file); breakpad-sym.ts reads a record's
// bytes again when a lookup needs them. Record grammar:
// https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md
import { BadSymbolsError } from '../errors.js';
import type { ByteSource } from './byte-source.js';

/** Bytes read per step of the pass. */
const WINDOW = 4 << 20;
/** A record line longer than this is malformed (no real name or rule runs to 64 KiB). */
export const MAX_LINE = 64 * 1024;

// Sample: "FUNC m 1690 30 0 store_value" (hex address, size, parameter size; `m` optional)
const FUNC = /^FUNC (?:m )?([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) [0-9a-fA-F]+ /;
// Sample: "PUBLIC m 14b0 0 WinMainCRTStartup"
const PUBLIC = /^PUBLIC (?:m )?([0-9a-fA-F]{1,16}) [0-9a-fA-F]+ /;
// Sample: "MODULE windows x86_64 66788DE2EE469EF54C4C44205044422E1 symcrash.pdb"
const MODULE = /^MODULE (\S+) (\S+) ([0-9a-fA-F]+) (.+)$/;
// Sample: "FILE 1 /work/src/symcrash.c" / "INLINE_ORIGIN 3 inner_helper"
const NUMBERED = /^(?:FILE|INLINE_ORIGIN) (\d{1,9}) /;
// Sample: "STACK CFI INIT 1690 30 .cfa: $rsp 8 + .ra: .cfa -8 + ^"
const CFI_INIT = /^STACK CFI INIT ([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) /;
// Sample: "STACK WIN 4 1600 25 4 0 0 0 8 0 1 $T0 $ebp = …" (type, rva, code size, …)
const WIN = /^STACK WIN [0-9a-fA-F]+ ([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) /;
// Sample: "INFO CODE_ID 6B06303D3C000 symcrash.exe"
const CODE_ID = /^INFO CODE_ID (\S+)/;

export interface BreakpadModuleLine {
  os: string;
  arch: string;
  /** GUID + age in hex, as the store path uses it. */
  debugId: string;
  name: string;
}

/** Growable columns of numbers (file offsets go past 4 GiB: Float64). */
export class Columns {
  readonly #width: number;
  #data: Float64Array;
  length = 0;
  constructor(width: number) {
    this.#width = width;
    this.#data = new Float64Array(width * 64);
  }
  push(...values: number[]): void {
    if ((this.length + 1) * this.#width > this.#data.length) {
      const bigger = new Float64Array(this.#data.length * 2);
      bigger.set(this.#data);
      this.#data = bigger;
    }
    this.#data.set(values, this.length * this.#width);
    this.length++;
  }
  get(row: number, column: number): number {
    return this.#data[row * this.#width + column] ?? 0;
  }
  set(row: number, column: number, value: number): void {
    this.#data[row * this.#width + column] = value;
  }
  /** Rows sorted by one column; returns the sorted key column (for floorIndex) and the order. */
  sortedBy(column: number): { keys: Float64Array; order: Uint32Array } {
    const order = Uint32Array.from({ length: this.length }, (_, i) => i);
    order.sort((a, b) => this.get(a, column) - this.get(b, column));
    return { keys: Float64Array.from(order, (row) => this.get(row, column)), order };
  }
  /** Drops the spare capacity once the pass is over. */
  trim(): void {
    this.#data = this.#data.slice(0, this.length * this.#width);
  }
}

export interface BreakpadIndex {
  module: BreakpadModuleLine;
  codeId: string | undefined;
  /** rva, size, start, end (byte range of the FUNC line and its line/INLINE records). */
  funcs: Columns;
  /** rva, start. */
  publics: Columns;
  /** id, start (FILE) */
  files: Columns;
  /** id, start (INLINE_ORIGIN) */
  origins: Columns;
  /** rva, size, start, end (the INIT line and its deltas). */
  cfi: Columns;
  /** rva, codeSize, start, end. */
  win: Columns;
  malformed: number;
}

export async function indexBreakpad(source: ByteSource, name: string): Promise<BreakpadIndex> {
  const funcs = new Columns(4);
  const publics = new Columns(2);
  const files = new Columns(2);
  const origins = new Columns(2);
  const cfi = new Columns(4);
  const win = new Columns(4);
  let module: BreakpadModuleLine | undefined;
  let codeId: string | undefined;
  let malformed = 0;
  /** Which record later lines extend: a FUNC (line/INLINE records) or a CFI INIT (deltas). */
  let open: 'func' | 'cfi' | undefined;
  let first = true;
  const onLine = (bytes: Buffer, from: number, to: number, start: number, end: number) => {
    let stop = to;
    if (stop > from && bytes[stop - 1] === 13) stop--;
    if (stop === from) return;
    if (first) {
      first = false;
      const m = stop - from <= MAX_LINE ? MODULE.exec(bytes.toString('utf8', from, stop)) : null;
      if (!m) {
        throw new BadSymbolsError(
          name,
          `${name}: not a Breakpad symbol file (no MODULE line first)`,
        );
      }
      module = {
        os: m[1] ?? '',
        arch: m[2] ?? '',
        debugId: (m[3] ?? '').toUpperCase(),
        name: m[4] ?? '',
      };
      return;
    }
    const c = bytes[from] ?? 0;
    const hex = (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
    // A line record ("16af 8 5 1") or an INLINE record belongs to the FUNC above it.
    if (hex && !startsWith(bytes, from, 'FUNC') && !startsWith(bytes, from, 'FILE')) {
      if (open === 'func') funcs.set(funcs.length - 1, 3, end);
      else malformed++;
      return;
    }
    if (startsWith(bytes, from, 'INLINE ')) {
      if (open === 'func') funcs.set(funcs.length - 1, 3, end);
      else malformed++;
      return;
    }
    if (startsWith(bytes, from, 'STACK CFI ') && !startsWith(bytes, from, 'STACK CFI INIT ')) {
      if (open === 'cfi') cfi.set(cfi.length - 1, 3, end);
      else malformed++;
      return;
    }
    open = undefined;
    if (stop - from > MAX_LINE) {
      malformed++;
      return;
    }
    const text = bytes.toString('utf8', from, stop);
    let m: RegExpExecArray | null;
    if ((m = FUNC.exec(text))) {
      funcs.push(parseInt(m[1] ?? '', 16), parseInt(m[2] ?? '', 16), start, end);
      open = 'func';
    } else if ((m = CFI_INIT.exec(text))) {
      cfi.push(parseInt(m[1] ?? '', 16), parseInt(m[2] ?? '', 16), start, end);
      open = 'cfi';
    } else if ((m = PUBLIC.exec(text))) {
      publics.push(parseInt(m[1] ?? '', 16), start);
    } else if ((m = NUMBERED.exec(text))) {
      (text.startsWith('FILE') ? files : origins).push(Number(m[1]), start);
    } else if ((m = WIN.exec(text))) {
      win.push(parseInt(m[1] ?? '', 16), parseInt(m[2] ?? '', 16), start, end);
    } else if ((m = CODE_ID.exec(text))) {
      codeId = m[1];
    } else if (!text.startsWith('INFO ')) {
      malformed++;
    }
  };
  await forEachLine(source, onLine);
  if (!module) throw new BadSymbolsError(name, `${name}: empty symbol file`);
  for (const columns of [funcs, publics, files, origins, cfi, win]) columns.trim();
  return { module, codeId, funcs, publics, files, origins, cfi, win, malformed };
}

/**
 * Calls `onLine(bytes, from, to, start, end)` for every line: bytes[from, to) is the line without
 * its `\n`, [start, end) its place in the file (end past the `\n`). Lines longer than a window are
 * passed cut (from..to holds their first bytes; the caller refuses them by length).
 */
async function forEachLine(
  source: ByteSource,
  onLine: (bytes: Buffer, from: number, to: number, start: number, end: number) => void,
): Promise<void> {
  let offset = 0;
  let carry: Buffer | undefined;
  let carryStart = 0;
  let skipping = false;
  while (offset < source.size) {
    const read = await source.read(offset, Math.min(WINDOW, source.size - offset));
    if (read.length === 0) break;
    const bytes = carry === undefined ? read : Buffer.concat([carry, read]);
    const base = carry === undefined ? offset : carryStart;
    carry = undefined;
    let at = 0;
    for (;;) {
      const nl = bytes.indexOf(10, at);
      if (nl === -1) break;
      if (skipping) skipping = false;
      else onLine(bytes, at, nl, base + at, base + nl + 1);
      at = nl + 1;
    }
    offset += read.length;
    if (at < bytes.length) {
      if (bytes.length - at > MAX_LINE) {
        // A line with no end in sight: passed once, cut, and the rest of it skipped.
        if (!skipping) onLine(bytes, at, bytes.length, base + at, base + bytes.length);
        skipping = true;
      } else {
        carry = bytes.subarray(at);
        carryStart = base + at;
      }
    }
  }
  if (carry !== undefined && !skipping) {
    onLine(carry, 0, carry.length, carryStart, carryStart + carry.length);
  }
}

function startsWith(bytes: Buffer, at: number, prefix: string): boolean {
  for (let i = 0; i < prefix.length; i++) {
    if (bytes[at + i] !== prefix.charCodeAt(i)) return false;
  }
  return true;
}
