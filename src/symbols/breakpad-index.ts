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

// The record patterns are sticky (`y`): each is tried at a line's start in the latin1 text of the
// whole window read (forEachLine), so no string is made per line. Latin1 gives one character per
// byte at the same offsets, and every pattern matches ASCII only, so it matches what it would in
// the line decoded as UTF-8, and never runs past the line (no pattern matches \n or \r).
// Sample: "FUNC m 1690 30 0 store_value" (hex address, size, parameter size; `m` optional)
const FUNC = /FUNC (?:m )?([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) [0-9a-fA-F]+ /y;
// Sample: "PUBLIC m 14b0 0 WinMainCRTStartup"
const PUBLIC = /PUBLIC (?:m )?([0-9a-fA-F]{1,16}) [0-9a-fA-F]+ /y;
// Sample: "MODULE windows x86_64 66788DE2EE469EF54C4C44205044422E1 symcrash.pdb"
const MODULE = /^MODULE (\S+) (\S+) ([0-9a-fA-F]+) (.+)$/;
// Sample: "FILE 1 /work/src/symcrash.c" / "INLINE_ORIGIN 3 inner_helper"
const NUMBERED = /(?:FILE|INLINE_ORIGIN) (\d{1,9}) /y;
// Sample: "STACK CFI INIT 1690 30 .cfa: $rsp 8 + .ra: .cfa -8 + ^"
const CFI_INIT = /STACK CFI INIT ([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) /y;
// Sample: "STACK WIN 4 1600 25 4 0 0 0 8 0 1 $T0 $ebp = …" (type, rva, code size, …)
const WIN = /STACK WIN [0-9a-fA-F]+ ([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) /y;
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
  /** A row of two columns (no rest array per row: a .sym file has tens of thousands). */
  push2(a: number, b: number): void {
    const at = this.length * this.#width;
    const data = at + this.#width > this.#data.length ? this.#grow() : this.#data;
    data[at] = a;
    data[at + 1] = b;
    this.length++;
  }

  /** A row of four columns. */
  push4(a: number, b: number, c: number, d: number): void {
    const at = this.length * this.#width;
    const data = at + this.#width > this.#data.length ? this.#grow() : this.#data;
    data[at] = a;
    data[at + 1] = b;
    data[at + 2] = c;
    data[at + 3] = d;
    this.length++;
  }

  /** Twice the room (called once per doubling, not per row). */
  #grow(): Float64Array {
    const bigger = new Float64Array(this.#data.length * 2);
    bigger.set(this.#data);
    this.#data = bigger;
    return bigger;
  }

  get(row: number, column: number): number {
    return this.#data[row * this.#width + column] ?? 0;
  }
  set(row: number, column: number, value: number): void {
    this.#data[row * this.#width + column] = value;
  }
  /** Rows sorted by one column; returns the sorted key column (for floorIndex) and the order. */
  sortedBy(column: number): { keys: Float64Array; order: Uint32Array } {
    const key = new Float64Array(this.length);
    const order = new Uint32Array(this.length);
    for (let row = 0; row < this.length; row++) {
      key[row] = this.#data[row * this.#width + column] ?? 0;
      order[row] = row;
    }
    // A typed array's sort with a comparator is stable: rows with equal keys keep file order.
    order.sort((a, b) => key[a]! - key[b]!);
    const keys = new Float64Array(this.length);
    for (let i = 0; i < order.length; i++) keys[i] = key[order[i]!]!;
    return { keys, order };
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
  const onLine: LineVisitor = (bytes, text, from, to, start, end) => {
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
    const kind = recordAt(text, from);
    if (kind === FUNC_RECORD) {
      funcs.push4(fields[0]!, fields[1]!, start, end);
      open = 'func';
    } else if (kind === CFI_RECORD) {
      cfi.push4(fields[0]!, fields[1]!, start, end);
      open = 'cfi';
    } else if (kind === PUBLIC_RECORD) publics.push2(fields[0]!, start);
    else if (kind === FILE_RECORD) files.push2(fields[0]!, start);
    else if (kind === ORIGIN_RECORD) origins.push2(fields[0]!, start);
    else if (kind === WIN_RECORD) win.push4(fields[0]!, fields[1]!, start, end);
    else {
      const line = bytes.toString('utf8', from, stop);
      const m = CODE_ID.exec(line);
      if (m) codeId = m[1];
      else if (!line.startsWith('INFO ')) malformed++;
    }
  };
  await forEachLine(source, onLine);
  if (!module) throw new BadSymbolsError(name, `${name}: empty symbol file`);
  for (const columns of [funcs, publics, files, origins, cfi, win]) columns.trim();
  return { module, codeId, funcs, publics, files, origins, cfi, win, malformed };
}

export const NONE = 0;
export const FUNC_RECORD = 1;
export const PUBLIC_RECORD = 2;
export const FILE_RECORD = 3;
export const ORIGIN_RECORD = 4;
export const CFI_RECORD = 5;
export const WIN_RECORD = 6;

/**
 * The numbers of the record recordAt() matched last: [address, size] of FUNC, STACK CFI INIT
 * and STACK WIN (its rva and code size), [address] of PUBLIC, [id] of FILE and INLINE_ORIGIN.
 */
export const fields = [0, 0];

/**
 * The kind of the record line starting at `at` in `text` (the window as latin1), NONE for none of
 * the patterns, its numbers in `fields`. Exported for its test.
 */
export function recordAt(text: string, at: number): number {
  // Each pattern starts with its own words: the first letters say which one can match.
  const c = text.charCodeAt(at);
  const pattern =
    c === 0x46 // F: FUNC or FILE
      ? text.charCodeAt(at + 1) === 0x55
        ? FUNC
        : NUMBERED
      : c === 0x50 // P: PUBLIC
        ? PUBLIC
        : c === 0x49 // I: INLINE_ORIGIN
          ? NUMBERED
          : c === 0x53 // S: STACK CFI INIT or STACK WIN
            ? text.charCodeAt(at + 6) === 0x43
              ? CFI_INIT
              : WIN
            : undefined;
  if (pattern === undefined) return NONE;
  pattern.lastIndex = at;
  const m = pattern.exec(text);
  if (m === null) return NONE;
  if (pattern === NUMBERED) {
    fields[0] = Number(m[1]);
    return c === 0x46 ? FILE_RECORD : ORIGIN_RECORD;
  }
  fields[0] = parseInt(m[1] ?? '', 16);
  fields[1] = m[2] === undefined ? 0 : parseInt(m[2], 16);
  return pattern === FUNC
    ? FUNC_RECORD
    : pattern === PUBLIC
      ? PUBLIC_RECORD
      : pattern === CFI_INIT
        ? CFI_RECORD
        : WIN_RECORD;
}

/** What forEachLine() calls for each line (see there). */
type LineVisitor = (
  bytes: Buffer,
  text: string,
  from: number,
  to: number,
  start: number,
  end: number,
) => void;

/**
 * Calls `onLine(bytes, text, from, to, start, end)` for every line: bytes[from, to) is the line
 * without its `\n` (text is bytes as latin1, offset for offset), [start, end) its place in the file (end past the `\n`). Lines longer than a window are
 * passed cut (from..to holds their first bytes; the caller refuses them by length).
 */
async function forEachLine(source: ByteSource, onLine: LineVisitor): Promise<void> {
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
    // The window as a one-byte string (latin1: one character a byte, the same offsets), made
    // once: newlines are found with String#indexOf (a plain builtin call, where Buffer#indexOf
    // checks its arguments in JavaScript for each of a file's tens of thousands of lines) and
    // the record patterns run on it in place (recordAt).
    const text = bytes.toString('latin1');
    for (;;) {
      const nl = text.indexOf('\n', at);
      if (nl === -1) break;
      if (skipping) skipping = false;
      else onLine(bytes, text, at, nl, base + at, base + nl + 1);
      at = nl + 1;
    }
    offset += read.length;
    if (at < bytes.length) {
      if (bytes.length - at > MAX_LINE) {
        // A line with no end in sight: passed once, cut, and the rest of it skipped.
        if (!skipping) onLine(bytes, text, at, bytes.length, base + at, base + bytes.length);
        skipping = true;
      } else {
        carry = bytes.subarray(at);
        carryStart = base + at;
      }
    }
  }
  if (carry !== undefined && !skipping) {
    onLine(carry, carry.toString('latin1'), 0, carry.length, carryStart, carryStart + carry.length);
  }
}

function startsWith(bytes: Buffer, at: number, prefix: string): boolean {
  for (let i = 0; i < prefix.length; i++) {
    if (bytes[at + i] !== prefix.charCodeAt(i)) return false;
  }
  return true;
}
