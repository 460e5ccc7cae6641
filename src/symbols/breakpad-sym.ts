// Breakpad text symbol files, as dump_syms writes them: MODULE, INFO, FILE, INLINE_ORIGIN, FUNC
// with its line records, INLINE, PUBLIC, STACK WIN and STACK CFI. Record grammar from
// https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md
// Malformed lines are counted and skipped (one bad line must not lose a whole module); a file
// with no MODULE line is not a symbol file at all.
import { BadSymbolsError } from '../errors.js';
import type { ModuleSymbolFile, SymbolLookup } from './lookup-types.js';
import { floorIndex } from './module-stream.js';
import { parseStackLine, StackRecords } from './breakpad-stack.js';

export interface BreakpadModuleLine {
  os: string;
  arch: string;
  /** GUID + age in hex, as the store path uses it. */
  debugId: string;
  name: string;
}

interface Func {
  rva: number;
  size: number;
  name: string;
  /** Line records: parallel arrays sorted by address. */
  lineRvas: number[];
  lineEnds: number[];
  lineNumbers: number[];
  lineFiles: number[];
  inlines: Inline[];
}

interface Inline {
  depth: number;
  callLine: number;
  callFile: number;
  origin: number;
  ranges: [number, number][];
}

export interface InlineFrame {
  function: string;
  /** Where the inlined call sits in its caller. */
  callFile?: string;
  callLine: number;
}

export interface BreakpadLookup extends SymbolLookup {
  /** Inlined calls active at the address, outermost first. */
  inlines?: InlineFrame[];
}

// Sample: "FUNC m 1690 30 0 store_value" (hex address, size, parameter size; `m` optional)
const FUNC = /^FUNC (?:m )?([0-9a-fA-F]+) ([0-9a-fA-F]+) ([0-9a-fA-F]+) (.*)$/;
// Sample: "PUBLIC m 14b0 0 WinMainCRTStartup"
const PUBLIC = /^PUBLIC (?:m )?([0-9a-fA-F]+) ([0-9a-fA-F]+) (.*)$/;
// Sample: "16af 8 5 1" (hex address, hex size, decimal line, decimal file number)
const LINE = /^([0-9a-fA-F]+) ([0-9a-fA-F]+) (-?\d+) (\d+)$/;
// Sample: "MODULE windows x86_64 66788DE2EE469EF54C4C44205044422E1 symcrash.pdb"
const MODULE = /^MODULE (\S+) (\S+) ([0-9a-fA-F]+) (.+)$/;
// Sample: "FILE 1 /work/src/symcrash.c" / "INLINE_ORIGIN 3 inner_helper"
const NUMBERED = /^(?:FILE|INLINE_ORIGIN) (\d+) (.*)$/;
// Sample: "INLINE 0 12 1 3 16a0 8 16b0 4" (depth, call line, call file, origin, then hex ranges)
const INLINE = /^INLINE (\d+) (\d+) (\d+) (\d+)((?: [0-9a-fA-F]+ [0-9a-fA-F]+)+)$/;

export class BreakpadSymbols implements ModuleSymbolFile {
  readonly format = 'breakpad';
  readonly module: BreakpadModuleLine;
  readonly codeId: string | undefined;
  readonly stack: StackRecords;
  /** Lines that did not parse (reported once as a warning by the caller). */
  readonly malformedLines: number;
  readonly #files: Map<number, string>;
  readonly #origins: Map<number, string>;
  readonly #funcs: Func[];
  readonly #funcRvas: number[];
  readonly #publics: { rva: number; name: string }[];
  readonly #publicRvas: number[];

  private constructor(parts: {
    module: BreakpadModuleLine;
    codeId: string | undefined;
    files: Map<number, string>;
    origins: Map<number, string>;
    funcs: Func[];
    publics: { rva: number; name: string }[];
    stack: StackRecords;
    malformed: number;
  }) {
    this.module = parts.module;
    this.codeId = parts.codeId;
    this.#files = parts.files;
    this.#origins = parts.origins;
    this.#funcs = parts.funcs.sort((a, b) => a.rva - b.rva);
    this.#funcRvas = this.#funcs.map((f) => f.rva);
    this.#publics = parts.publics.sort((a, b) => a.rva - b.rva);
    this.#publicRvas = this.#publics.map((p) => p.rva);
    this.stack = parts.stack;
    this.malformedLines = parts.malformed;
  }

  /** Parses a whole .sym file (`name` is for messages). */
  static parse(bytes: Buffer, name: string): BreakpadSymbols {
    let module: BreakpadModuleLine | undefined;
    let codeId: string | undefined;
    const files = new Map<number, string>();
    const origins = new Map<number, string>();
    const funcs: Func[] = [];
    const publics: { rva: number; name: string }[] = [];
    const stack = new StackRecords();
    let malformed = 0;
    let current: Func | undefined;
    let start = 0;
    let lineNo = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(10, start);
      if (end === -1) end = bytes.length;
      const raw = bytes.toString(
        'utf8',
        start,
        end > start && bytes[end - 1] === 13 ? end - 1 : end,
      );
      start = end + 1;
      lineNo++;
      if (raw.length === 0) continue;
      if (lineNo === 1) {
        const m = MODULE.exec(raw);
        if (!m)
          throw new BadSymbolsError(
            name,
            `${name}: not a Breakpad symbol file (no MODULE line first)`,
          );
        module = {
          os: m[1] ?? '',
          arch: m[2] ?? '',
          debugId: (m[3] ?? '').toUpperCase(),
          name: m[4] ?? '',
        };
        continue;
      }
      const first = raw.charCodeAt(0);
      const isHex =
        (first >= 48 && first <= 57) ||
        (first >= 97 && first <= 102) ||
        (first >= 65 && first <= 70);
      if (isHex && !raw.startsWith('FUNC') && !raw.startsWith('FILE')) {
        const m = LINE.exec(raw);
        if (!m || !current) {
          malformed++;
          continue;
        }
        const rva = parseInt(m[1] ?? '', 16);
        current.lineRvas.push(rva);
        current.lineEnds.push(rva + parseInt(m[2] ?? '', 16));
        current.lineNumbers.push(Number(m[3]));
        current.lineFiles.push(Number(m[4]));
        continue;
      }
      const space = raw.indexOf(' ');
      const keyword = space === -1 ? raw : raw.slice(0, space);
      current = keyword === 'FUNC' || keyword === 'INLINE' ? current : undefined;
      if (keyword === 'FUNC') {
        const m = FUNC.exec(raw);
        if (!m) {
          malformed++;
          continue;
        }
        current = {
          rva: parseInt(m[1] ?? '', 16),
          size: parseInt(m[2] ?? '', 16),
          name: m[4] ?? '',
          lineRvas: [],
          lineEnds: [],
          lineNumbers: [],
          lineFiles: [],
          inlines: [],
        };
        funcs.push(current);
      } else if (keyword === 'INLINE') {
        const m = INLINE.exec(raw);
        if (!m || !current) {
          malformed++;
          continue;
        }
        const numbers = (m[5] ?? '')
          .trim()
          .split(' ')
          .map((h) => parseInt(h, 16));
        const ranges: [number, number][] = [];
        for (let i = 0; i + 1 < numbers.length; i += 2) {
          ranges.push([numbers[i] ?? 0, (numbers[i] ?? 0) + (numbers[i + 1] ?? 0)]);
        }
        current.inlines.push({
          depth: Number(m[1]),
          callLine: Number(m[2]),
          callFile: Number(m[3]),
          origin: Number(m[4]),
          ranges,
        });
      } else if (keyword === 'FILE' || keyword === 'INLINE_ORIGIN') {
        const m = NUMBERED.exec(raw);
        if (!m) malformed++;
        else (keyword === 'FILE' ? files : origins).set(Number(m[1]), m[2] ?? '');
      } else if (keyword === 'PUBLIC') {
        const m = PUBLIC.exec(raw);
        if (!m) malformed++;
        else publics.push({ rva: parseInt(m[1] ?? '', 16), name: m[3] ?? '' });
      } else if (keyword === 'STACK') {
        if (!parseStackLine(raw, stack)) malformed++;
      } else if (keyword === 'INFO') {
        // Sample: "INFO CODE_ID 6B06303D3C000 symcrash.exe"
        const m = /^INFO CODE_ID (\S+)/.exec(raw);
        if (m) codeId = m[1];
      } else {
        malformed++;
      }
    }
    if (!module) throw new BadSymbolsError(name, `${name}: empty symbol file`);
    for (const f of funcs) sortLines(f);
    stack.finish();
    return new BreakpadSymbols({
      module,
      codeId,
      files,
      origins,
      funcs,
      publics,
      stack,
      malformed,
    });
  }

  lookup(rva: number): Promise<BreakpadLookup | undefined> {
    return Promise.resolve(this.lookupSync(rva));
  }

  lookupSync(rva: number): BreakpadLookup | undefined {
    const f = this.#funcs[floorIndex(this.#funcRvas, rva)];
    if (f && rva < f.rva + Math.max(f.size, 1)) {
      const i = floorIndex(f.lineRvas, rva);
      const hasLine = i >= 0 && rva < (f.lineEnds[i] ?? 0);
      const file = hasLine ? this.#files.get(f.lineFiles[i] ?? -1) : undefined;
      const inlines = this.#inlinesAt(f, rva);
      return {
        function: f.name,
        functionOffset: rva - f.rva,
        kind: 'function',
        ...(file === undefined ? {} : { file }),
        ...(hasLine ? { line: f.lineNumbers[i] ?? 0 } : {}),
        ...(inlines.length === 0 ? {} : { inlines }),
      };
    }
    const p = this.#publics[floorIndex(this.#publicRvas, rva)];
    if (!p) return undefined;
    return { function: p.name, functionOffset: rva - p.rva, kind: 'public' };
  }

  #inlinesAt(f: Func, rva: number): InlineFrame[] {
    return f.inlines
      .filter((inline) => inline.ranges.some(([s, e]) => rva >= s && rva < e))
      .sort((a, b) => a.depth - b.depth)
      .map((inline) => {
        const callFile = this.#files.get(inline.callFile);
        return {
          function: this.#origins.get(inline.origin) ?? `inline#${inline.origin}`,
          callLine: inline.callLine,
          ...(callFile === undefined ? {} : { callFile }),
        };
      });
  }
}

function sortLines(f: Func): void {
  const order = f.lineRvas
    .map((_, i) => i)
    .sort((a, b) => (f.lineRvas[a] ?? 0) - (f.lineRvas[b] ?? 0));
  const pick = (values: number[]) => order.map((i) => values[i] ?? 0);
  f.lineRvas = pick(f.lineRvas);
  f.lineEnds = pick(f.lineEnds);
  f.lineNumbers = pick(f.lineNumbers);
  f.lineFiles = pick(f.lineFiles);
}
