// Breakpad text symbol files, as dump_syms writes them: MODULE, INFO, FILE, INLINE_ORIGIN, FUNC
// with its line records, INLINE, PUBLIC, STACK WIN and STACK CFI. Record grammar from
// https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md
// Malformed lines are counted and skipped (one bad line must not lose a whole module); a file
// with no MODULE line is not a symbol file at all. Opening reads the file once, line by line, and
// keeps an index (breakpad-index.ts); a lookup reads the one FUNC block (or STACK record) it needs
// again through the ByteSource, so memory stays flat in the file's size (a 400 MB .sym is a few
// MB of index, not GBs of objects).
import { BufferSource, type ByteSource } from './byte-source.js';
import { indexBreakpad, MAX_LINE, type BreakpadIndex } from './breakpad-index.js';
import type { ModuleSymbolFile } from './lookup-types.js';
import { floorIndex } from './module-stream.js';
import { StackIndex } from './breakpad-stack.js';
import {
  functionHit,
  parseFuncBlock,
  type BreakpadLookup,
  type Func,
  type InlineFrame,
} from './breakpad-func-block.js';

import type { BreakpadModuleLine } from './breakpad-index.js';
export type { BreakpadModuleLine } from './breakpad-index.js';
export type { BreakpadLookup, InlineFrame } from './breakpad-func-block.js';

// Sample: "PUBLIC m 14b0 0 WinMainCRTStartup"
const PUBLIC = /^PUBLIC (?:m )?([0-9a-fA-F]+) ([0-9a-fA-F]+) (.*)$/;
// Sample: "FILE 1 /work/src/symcrash.c" / "INLINE_ORIGIN 3 inner_helper"
const NUMBERED = /^(?:FILE|INLINE_ORIGIN) (\d+) (.*)$/;

export class BreakpadSymbols implements ModuleSymbolFile {
  readonly format = 'breakpad';
  readonly module: BreakpadModuleLine;
  readonly codeId: string | undefined;
  readonly stack: StackIndex;
  /** Lines that did not parse (reported once as a warning by the caller). */
  readonly malformedLines: number;
  readonly #source: ByteSource;
  readonly #name: string;
  readonly #index: BreakpadIndex;
  readonly #funcs: { keys: Float64Array; order: Uint32Array };
  readonly #publics: { keys: Float64Array; order: Uint32Array };
  readonly #files: { keys: Float64Array; order: Uint32Array };
  readonly #origins: { keys: Float64Array; order: Uint32Array };
  /**
   * FUNC blocks parsed lately, by index row (a walk asks for the same few again and again): the
   * promise while the block is read, then the block itself (null: not a FUNC block), so a lookup
   * asked again is answered without a promise (lookupNow).
   */
  readonly #parsed = new Map<number, Promise<Func | undefined> | Func | null>();
  /** FILE and INLINE_ORIGIN names by number, the same way (null: no such record). */
  readonly #fileNames = new Map<number, Promise<string | undefined> | string | null>();
  readonly #originNames = new Map<number, Promise<string | undefined> | string | null>();
  /** PUBLIC records read lately, by index row (null: the line did not parse). */
  readonly #publicLines = new Map<number, Promise<PublicLine | undefined> | PublicLine | null>();

  private constructor(source: ByteSource, name: string, index: BreakpadIndex) {
    this.#source = source;
    this.#name = name;
    this.#index = index;
    this.module = index.module;
    this.codeId = index.codeId;
    this.malformedLines = index.malformed;
    this.#funcs = index.funcs.sortedBy(0);
    this.#publics = index.publics.sortedBy(0);
    this.#files = index.files.sortedBy(0);
    this.#origins = index.origins.sortedBy(0);
    this.stack = new StackIndex(source, index);
  }

  /** Indexes a .sym file read through `source` (kept: lookups read it again). */
  static async open(source: ByteSource, name: string): Promise<BreakpadSymbols> {
    return new BreakpadSymbols(source, name, await indexBreakpad(source, name));
  }

  /** A .sym file already in memory (`name` is for messages). */
  static parse(bytes: Buffer, name: string): Promise<BreakpadSymbols> {
    return BreakpadSymbols.open(new BufferSource(bytes), name);
  }

  async lookup(rva: number): Promise<BreakpadLookup | undefined> {
    const now = this.lookupNow(rva);
    if (now !== null) return now;
    const at = floorIndex(this.#funcs.keys, rva);
    const row = at < 0 ? undefined : this.#funcs.order[at];
    const funcs = this.#index.funcs;
    if (row !== undefined && rva < funcs.get(row, 0) + Math.max(funcs.get(row, 1), 1)) {
      const f = await this.#func(row);
      if (f) {
        const i = floorIndex(f.lineRvas, rva);
        const hasLine = i >= 0 && rva < (f.lineEnds[i] ?? 0);
        const file = hasLine ? await this.#fileName(f.lineFiles[i] ?? -1) : undefined;
        const inlines = await this.#inlinesAt(f, rva);
        return functionHit(
          f,
          rva,
          file,
          hasLine ? i : -1,
          inlines.length === 0 ? undefined : inlines,
        );
      }
    }
    const p = floorIndex(this.#publics.keys, rva);
    const publicRow = p < 0 ? undefined : this.#publics.order[p];
    if (publicRow === undefined) return undefined;
    const line = await this.#publicLine(publicRow);
    if (line === undefined) return undefined;
    return { function: line.name, functionOffset: rva - line.start, kind: 'public' };
  }

  /**
   * What lookup(rva) answers, when everything it needs was read lately (a walk asks for the same
   * few functions again and again); null when only lookup() can tell. Same answers, no promise.
   */
  lookupNow(rva: number): BreakpadLookup | undefined | null {
    const at = floorIndex(this.#funcs.keys, rva);
    const row = at < 0 ? undefined : this.#funcs.order[at];
    const funcs = this.#index.funcs;
    if (row !== undefined && rva < funcs.get(row, 0) + Math.max(funcs.get(row, 1), 1)) {
      const f = this.#parsed.get(row);
      if (f === undefined || f instanceof Promise) return null;
      if (f !== null) {
        const i = floorIndex(f.lineRvas, rva);
        const hasLine = i >= 0 && rva < (f.lineEnds[i] ?? 0);
        let file: string | undefined;
        if (hasLine) {
          const name = this.#nameNow(this.#fileNames, f.lineFiles[i] ?? -1);
          if (name === null) return null;
          file = name;
        }
        let inlines: InlineFrame[] | undefined;
        if (f.inlines.length > 0) {
          const found = this.#inlinesNow(f, rva);
          if (found === null) return null;
          if (found.length > 0) inlines = found;
        }
        return functionHit(f, rva, file, hasLine ? i : -1, inlines);
      }
    }
    const p = floorIndex(this.#publics.keys, rva);
    const publicRow = p < 0 ? undefined : this.#publics.order[p];
    if (publicRow === undefined) return undefined;
    const line = this.#publicLines.get(publicRow);
    if (line === undefined || line instanceof Promise) return null;
    if (line === null) return undefined;
    return { function: line.name, functionOffset: rva - line.start, kind: 'public' };
  }

  /** The FUNC record at index row, with its lines and inlines, read again from the file. */
  #func(row: number): Promise<Func | undefined> {
    const known = this.#parsed.get(row);
    if (known !== undefined) {
      this.#parsed.delete(row);
      this.#parsed.set(row, known);
      return known instanceof Promise ? known : Promise.resolve(known ?? undefined);
    }
    const funcs = this.#index.funcs;
    const start = funcs.get(row, 2);
    const end = Math.min(funcs.get(row, 3), start + MAX_FUNC_BLOCK);
    const hit = this.#source.read(start, end - start).then((bytes) => {
      const f = parseFuncBlock(bytes);
      if (this.#parsed.get(row) === hit) this.#parsed.set(row, f ?? null);
      return f;
    });
    this.#parsed.set(row, hit);
    if (this.#parsed.size > MAX_PARSED) {
      const oldest = this.#parsed.keys().next();
      if (oldest.done !== true) this.#parsed.delete(oldest.value);
    }
    return hit;
  }

  /** The PUBLIC record at index row, read again from the file. */
  #publicLine(row: number): Promise<PublicLine | undefined> {
    const known = this.#publicLines.get(row);
    if (known !== undefined) {
      return known instanceof Promise ? known : Promise.resolve(known ?? undefined);
    }
    const hit = readLine(this.#source, this.#index.publics.get(row, 1)).then((line) => {
      const m = line === undefined ? null : PUBLIC.exec(line);
      const parsed = m ? { start: parseInt(m[1] ?? '', 16), name: m[3] ?? '' } : undefined;
      if (this.#publicLines.get(row) === hit) this.#publicLines.set(row, parsed ?? null);
      return parsed;
    });
    if (this.#publicLines.size > MAX_PARSED * 4) this.#publicLines.clear();
    this.#publicLines.set(row, hit);
    return hit;
  }

  #fileName(id: number): Promise<string | undefined> {
    return this.#numbered(this.#fileNames, this.#files, this.#index.files, id);
  }

  #numbered(
    names: Map<number, Promise<string | undefined> | string | null>,
    sorted: { keys: Float64Array; order: Uint32Array },
    columns: BreakpadIndex['files'],
    id: number,
  ): Promise<string | undefined> {
    const known = names.get(id);
    if (known !== undefined) {
      return known instanceof Promise ? known : Promise.resolve(known ?? undefined);
    }
    const at = floorIndex(sorted.keys, id);
    const row = at < 0 ? undefined : sorted.order[at];
    let hit: Promise<string | undefined>;
    if (row === undefined || columns.get(row, 0) !== id) {
      hit = Promise.resolve(undefined);
      if (names.size > MAX_PARSED * 4) names.clear();
      names.set(id, null);
      return hit;
    }
    hit = readLine(this.#source, columns.get(row, 1)).then((line) => {
      const m = line === undefined ? null : NUMBERED.exec(line);
      const name = m ? (m[2] ?? '') : undefined;
      if (names.get(id) === hit) names.set(id, name ?? null);
      return name;
    });
    if (names.size > MAX_PARSED * 4) names.clear();
    names.set(id, hit);
    return hit;
  }

  /** A FILE or INLINE_ORIGIN name already read: the name, undefined (none), or null (not yet). */
  #nameNow(
    names: Map<number, Promise<string | undefined> | string | null>,
    id: number,
  ): string | undefined | null {
    const known = names.get(id);
    if (known === undefined || known instanceof Promise) return null;
    return known ?? undefined;
  }

  async #inlinesAt(f: Func, rva: number): Promise<InlineFrame[]> {
    const active = f.inlines
      .filter((inline) => inline.ranges.some(([s, e]) => rva >= s && rva < e))
      .sort((a, b) => a.depth - b.depth);
    const out: InlineFrame[] = [];
    for (const inline of active) {
      const callFile = await this.#fileName(inline.callFile);
      const origin = await this.#numbered(
        this.#originNames,
        this.#origins,
        this.#index.origins,
        inline.origin,
      );
      out.push({
        function: origin ?? `inline#${inline.origin}`,
        callLine: inline.callLine,
        ...(callFile === undefined ? {} : { callFile }),
      });
    }
    return out;
  }

  /** #inlinesAt's answer from names already read; null when one is not. */
  #inlinesNow(f: Func, rva: number): InlineFrame[] | null {
    const active = f.inlines
      .filter((inline) => inline.ranges.some(([s, e]) => rva >= s && rva < e))
      .sort((a, b) => a.depth - b.depth);
    const out: InlineFrame[] = [];
    for (const inline of active) {
      const callFile = this.#nameNow(this.#fileNames, inline.callFile);
      const origin = this.#nameNow(this.#originNames, inline.origin);
      if (callFile === null || origin === null) return null;
      out.push({
        function: origin ?? `inline#${inline.origin}`,
        callLine: inline.callLine,
        ...(callFile === undefined ? {} : { callFile }),
      });
    }
    return out;
  }

  /** The file name for messages. */
  get name(): string {
    return this.#name;
  }
}

/** A PUBLIC record's address and name. */
interface PublicLine {
  start: number;
  name: string;
}

/** Longest FUNC block read for one lookup (a hostile file may give one FUNC a million lines). */
const MAX_FUNC_BLOCK = 16 << 20;
/** FUNC blocks kept parsed per file. */
const MAX_PARSED = 256;

/** A FUNC line and the line and INLINE records under it. */
/** The line starting at `start` (at most MAX_LINE bytes), without its line end. */
export async function readLine(source: ByteSource, start: number): Promise<string | undefined> {
  const bytes = await source.read(start, MAX_LINE);
  let end = bytes.indexOf(10);
  if (end === -1) end = bytes.length;
  if (end > 0 && bytes[end - 1] === 13) end--;
  return bytes.length === 0 ? undefined : bytes.toString('utf8', 0, end);
}
